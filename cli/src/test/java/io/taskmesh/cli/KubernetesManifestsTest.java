package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * Every object of compose/k8s/*.yaml against two vendored schemas, with networknt's JSON Schema
 * validator: the official Kubernetes 1.22.0 OpenAPI definitions of the kinds used
 * (compose/k8s/schemas/kubernetes-1.22.0-definitions.json: field types and required fields, as the
 * API server checks them; open to unknown fields, as the OpenAPI is), and our own strict subset
 * (kubernetes-objects.schema.json: name patterns, enums, no unknown field, which catches a misspelt
 * field the official ones let through). Beside {@link DeploymentEnvTest}, which checks the env vars
 * against the code; no Kubernetes runs here.
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

  /**
   * The official Kubernetes 1.22.0 OpenAPI definitions of the kinds the manifests use, as JSON
   * Schema (compose/k8s/schemas/README.md says where they come from).
   */
  private static JsonNode officialDefinitions() throws IOException {
    return JSON.readTree(
        ROOT.resolve("compose/k8s/schemas/kubernetes-1.22.0-definitions.json").toFile());
  }

  /** The definition of an object's apiVersion and kind, e.g. io.k8s.api.apps.v1.Deployment. */
  static String definitionOf(Map<?, ?> object) {
    String apiVersion = String.valueOf(object.get("apiVersion"));
    String group = apiVersion.contains("/") ? apiVersion.replace("/", ".") : "core." + apiVersion;
    return "io.k8s.api." + group + "." + object.get("kind");
  }

  /** The official schema of {@code object}'s kind, or null when none is vendored for it. */
  private static Schema officialSchema(JsonNode definitions, Map<?, ?> object) {
    String id = definitionOf(object);
    if (!definitions.path("definitions").has(id)) {
      return null;
    }
    ObjectNode root = JSON.createObjectNode();
    root.put("$ref", "#/definitions/" + id);
    root.set("definitions", definitions.get("definitions"));
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7).getSchema(root);
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
  void everyManifestIsValidAgainstTheOfficialKubernetesDefinitions() throws IOException {
    JsonNode definitions = officialDefinitions();
    List<Path> files;
    try (Stream<Path> s = Files.list(ROOT.resolve("compose/k8s"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    int objects = 0;
    List<String> problems = new ArrayList<>();
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f)) {
        for (Object doc : new Yaml().loadAll(r)) {
          if (doc == null) {
            continue;
          }
          objects++;
          Map<?, ?> object = (Map<?, ?>) doc;
          String where = f.getFileName() + " " + object.get("kind");
          Schema schema = officialSchema(definitions, object);
          if (schema == null) {
            problems.add(where + ": no official definition vendored for " + definitionOf(object));
            continue;
          }
          problems(schema, doc).forEach(p -> problems.add(where + " " + p));
        }
      }
    }
    assertThat(problems).as("problems against the official definitions").isEmpty();
    assertThat(objects).as("objects checked").isGreaterThanOrEqualTo(20);
  }

  @Test
  void theOfficialDefinitionsRefuseAWrongTypeAndAMissingRequiredField() throws IOException {
    // guards the vendored file and its references: a broken $ref or an empty file passes anything
    Map<String, Object> bad =
        new Yaml()
            .load(
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: actor-echo, labels: {app: 3}}
                spec:
                  replicas: two
                  template:
                    metadata: {labels: {app: echo}}
                    spec:
                      containers:
                      - image: taskmesh/sidecar
                        ports: [{containerPort: http}]
                """);
    Schema schema = officialSchema(officialDefinitions(), bad);
    assertThat(schema).isNotNull();
    assertThat(String.join("\n", problems(schema, bad)))
        .contains("/spec/replicas")
        .contains("selector")
        .contains("/spec/template/spec/containers/0")
        .contains("/spec/template/spec/containers/0/ports/0/containerPort")
        .contains("/metadata/labels/app");
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
