package io.taskmesh.cli.remote;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.client.GatewayClient;
import io.taskmesh.cli.watch.ProgressLines;
import io.taskmesh.schemas.Json;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./taskmesh flows}: the flows a client may start, with their input schemas. */
@Command(
    name = "flows",
    mixinStandardHelpOptions = true,
    description =
        "List the flows the gateway offers as tools, each with its description and inputSchema,"
            + " then the flows offered only as A2A skills (./taskmesh call starts both).")
public final class FlowsCommand extends RemoteCommand {
  @Option(names = "--json", description = "the MCP tool list as JSON")
  boolean json;

  @Override
  int run(GatewayClient client) {
    List<JsonNode> flows = client.flows();
    PrintWriter out = out();
    if (json) {
      out.println(ProgressLines.pretty(Json.MAPPER.valueToTree(flows)));
    } else if (flows.isEmpty()) {
      out.println("no flows are offered as tools (a flow needs an mcp section)");
    } else {
      for (JsonNode f : flows) {
        out.println(
            f.path("name").asText()
                + (f.hasNonNull("description") ? "  " + f.get("description").asText() : ""));
        out.println("  input: " + Tables.compact(f.get("inputSchema")));
      }
    }
    if (!json) {
      List<String> tools = flows.stream().map(f -> f.path("name").asText()).toList();
      for (JsonNode skill : client.a2aSkills()) {
        if (!tools.contains(skill.path("id").asText())) {
          out.println(
              skill.path("id").asText()
                  + "  (A2A skill only)"
                  + (skill.hasNonNull("description")
                      ? "  " + skill.get("description").asText()
                      : ""));
        }
      }
    }
    out.flush();
    return 0;
  }
}
