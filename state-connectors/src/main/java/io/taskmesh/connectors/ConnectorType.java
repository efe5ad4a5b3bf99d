package io.taskmesh.connectors;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The connector types of the spec, by the suffix their image carries. */
public enum ConnectorType {
  OBJSTORE_BUFFERED_LWW("objstore-buffered-lww"),
  OBJSTORE_PASSTHROUGH("objstore-passthrough"),
  OBJSTORE_BUFFERED_CAS("objstore-buffered-cas");

  private final String suffix;

  ConnectorType(String suffix) {
    this.suffix = suffix;
  }

  public String suffix() {
    return suffix;
  }

  public static ConnectorType fromSuffix(String name) {
    for (ConnectorType t : values()) {
      if (t.suffix.equals(name)) {
        return t;
      }
    }
    throw new ConfigException("unknown connector type " + (name == null ? "(none)" : "'" + name + "'")
        + "; known: " + Arrays.stream(values()).map(ConnectorType::suffix).collect(Collectors.joining(", ")));
  }
}
