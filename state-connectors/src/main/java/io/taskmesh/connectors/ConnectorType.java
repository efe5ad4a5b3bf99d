package io.taskmesh.connectors;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The connector types of the spec, by the suffix their image carries. */
public enum ConnectorType {
  OBJSTORE_BUFFERED_LWW("objstore-buffered-lww", Family.OBJSTORE),
  OBJSTORE_PASSTHROUGH("objstore-passthrough", Family.OBJSTORE),
  OBJSTORE_BUFFERED_CAS("objstore-buffered-cas", Family.OBJSTORE),
  BLOB_BUFFERED_LWW("blob-buffered-lww", Family.BLOB),
  BLOB_BUFFERED_CAS("blob-buffered-cas", Family.BLOB),
  KV_BUFFERED_CAS("kv-buffered-cas", Family.KV);

  /** The backend kind; it decides the settings a type needs and its extended attributes. */
  public enum Family {
    OBJSTORE,
    BLOB,
    KV
  }

  private final String suffix;
  private final Family family;

  ConnectorType(String suffix, Family family) {
    this.suffix = suffix;
    this.family = family;
  }

  public Family family() {
    return family;
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
    throw new IllegalArgumentException(
        "unknown connector type "
            + (name == null ? "(none)" : "'" + name + "'")
            + "; known: "
            + Arrays.stream(values()).map(ConnectorType::suffix).collect(Collectors.joining(", ")));
  }
}
