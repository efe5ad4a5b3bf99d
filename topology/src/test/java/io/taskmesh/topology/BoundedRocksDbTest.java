package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class BoundedRocksDbTest {

  static {
    RocksDB.loadLibrary();
  }

  @Test
  void everyStoreOfTheFoldSharesOneMemtableBudgetWithSmallMemtables() {
    BoundedRocksDb setter = new BoundedRocksDb();
    try (Options tasks = new Options();
        Options history = new Options()) {
      setter.setConfig("tasks", tasks, Map.of());
      setter.setConfig("tasks-history", history, Map.of());

      assertThat(tasks.writeBufferManager()).isNotNull().isSameAs(history.writeBufferManager());
      assertThat(tasks.writeBufferSize()).isEqualTo(4L * 1024 * 1024);
      assertThat(tasks.maxWriteBufferNumber()).isEqualTo(2);
    }
  }

  @Test
  void theViewLiveAndReplayingUsesTheBudget() {
    TaskViewConfig config =
        new TaskViewConfig("localhost:9092", "app", Path.of("/tmp/x"), 3, (short) 1);
    for (Properties p :
        new Properties[] {TaskStreamsProps.of(config, false), TaskStreamsProps.of(config, true)}) {
      assertThat(p.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG))
          .isEqualTo(BoundedRocksDb.class);
    }
  }
}
