package io.taskmesh.devkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class PackageGraphTest {
  private static PackageGraph graph(String... sources) {
    PackageGraph g = new PackageGraph("x");
    for (int i = 0; i < sources.length; i++) {
      g.read("F" + i + ".java", sources[i]);
    }
    return g;
  }

  @Test
  void importsWildcardsStaticImportsAndQualifiedNamesAreUses() {
    PackageGraph g =
        graph(
            "package x;\nimport x.a.A;\nimport x.b.*;\nimport static x.c.C.run;\n"
                + "class R { Object o = new x.d.D(); }",
            "package x.a;",
            "package x.b;",
            "package x.c;",
            "package x.d;");
    assertThat(g.edges().get("x")).containsExactly("x.a", "x.b", "x.c", "x.d");
  }

  @Test
  void namesInCommentsAndStringsAreNoUse() {
    PackageGraph g =
        graph(
            "package x.a;\n// x.b.B\n/** {@link x.b.B} */\nclass A { String s = \"/*\"; String t ="
                + " \"x.b.B\"; }\n/* x.b.B */",
            "package x.b;");
    assertThat(g.edges().get("x.a")).isEmpty();
  }

  @Test
  void aCycleIsReportedWithTheImportsThatCloseIt() {
    PackageGraph g = graph("package x.a;\nimport x.b.B;", "package x.b;\nimport x.a.A;");
    assertThat(g.cycles())
        .containsExactly(
            "cycle between [x.a, x.b]:",
            "  x.a -> x.b (F0.java: import x.b.B)",
            "  x.b -> x.a (F1.java: import x.a.A)");
  }

  @Test
  void aUseUpwardsSidewaysOrOfAnUnlistedPackageBreaksTheLayers() {
    PackageGraph g =
        graph(
            "package x;\nimport x.a.A;",
            "package x.a;\nimport x.b.B;\nimport x.c.C;",
            "package x.b;\nimport x.A0;",
            "package x.c;");
    assertThat(g.layerViolations(List.of(List.of(""), List.of("a", "b"))))
        .containsExactly(
            "x.a uses a package of its own layer, x.b (F1.java: import x.b.B)",
            "x.a uses a package in no layer, x.c (F1.java: import x.c.C)",
            "x.b uses a package above it, x (F2.java: import x.A0)",
            "x.c is in no layer: add it to the layer list");
  }
}
