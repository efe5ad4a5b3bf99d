package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.yaml.snakeyaml.Yaml;

/**
 * Every object of compose/k8s/*.yaml against the vendored Kubernetes schema
 * (compose/k8s/schemas/kubernetes-objects.schema.json: the API's field names, types, required
 * fields and name patterns for the kinds used, strict about unknown fields), with networknt's JSON
 * Schema validator. Beside {@link DeploymentEnvTest}, which checks the env vars against the code;
 * no Kubernetes runs here.
 */
@Timeout(60)
class KubernetesManifestsTest {
  private static final Path ROOT =
      Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Schema schema() throws IOException {
    try (InputStream in =
        Files.newInputStream(ROOT.resolve("compose/k8s/schemas/kubernetes-objects.schema.json"))) {
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
    }
  }

  private static List<String> problems(Schema schema, Object object) {
    JsonNode node = JSON.valueToTree(object);
    List<String> out = new ArrayList<>();
    for (Error e : schema.validate(node)) {
      out.add(e.getInstanceLocation() + ": " + e.getMessage());
    }
    return out;
  }

  @Test
  void everyManifestIsAValidKubernetesObject() throws IOException {
    Schema schema = schema();
    List<Path> files;
    try (Stream<Path> s = Files.list(ROOT.resolve("compose/k8s"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
    int objects = 0;
    List<String> problems = new ArrayList<>();
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f)) {
        for (Object doc : new Yaml().loadAll(r)) {
          if (doc == null) {
            continue;
          }
          objects++;
          String where = f.getFileName() + " " + ((Map<?, ?>) doc).get("kind");
          problems(schema, doc).forEach(p -> problems.add(where + " " + p));
        }
      }
    }
    assertThat(problems).as("schema problems").isEmpty();
    assertThat(objects).as("objects checked").isGreaterThanOrEqualTo(20);
  }

  @Test
  void theSchemaRefusesAMistypedFieldAMissingImageAndAWrongType() throws IOException {
    // guards the schema itself: a lax one would pass every manifest
    Map<String, Object> bad =
        new Yaml()
            .load(
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: actor-echo}
                spec:
                  replicas: two
                  selector: {matchLabels: {app: echo}}
                  template:
                    metadata: {labels: {app: echo}}
                    spec:
                      containers:
                      - name: sidecar
                        imagePullPolicy: Sometimes
                        env: [{name: SVC_ACTOR_NAME, vaule: echo}]
                """);
    List<String> problems = problems(schema(), bad);
    assertThat(String.join("\n", problems))
        .contains("/spec/replicas")
        .contains("/spec/template/spec/containers/0/imagePullPolicy")
        .contains("vaule");
  }

  @Test
  void anUnknownKindIsRefused() throws IOException {
    Map<String, Object> cronJob =
        Map.of("apiVersion", "batch/v1", "kind", "CronJob", "metadata", Map.of("name", "x"));
    assertThat(problems(schema(), cronJob)).isNotEmpty();
  }
}
