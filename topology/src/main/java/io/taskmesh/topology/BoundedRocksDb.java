package io.taskmesh.topology;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * One memory budget for every RocksDB store of the fold in this JVM: the block cache, and the
 * memtables charged to it.
 *
 * <p>Why: by default each store of each partition keeps up to three 16 MiB memtables and a 50 MiB
 * block cache of its own. The fold has three stores per partition, so a dev stack's JVM grew by the
 * whole of what it had folded (nothing is flushed before 16 MiB a store) and a gateway's native
 * memory grew with its partition count, outside the heap limit. The fold only ever reads a task's
 * latest state and history, which recent writes keep in the memtables or the cache, so a shared
 * budget costs it no reads that matter (figures: docs/bench/peer.md).
 */
public final class BoundedRocksDb implements RocksDBConfigSetter {
  /** The budget of the block cache, memtables included. */
  static final long BUDGET_BYTES = 32L * 1024 * 1024;

  /** Memtables may take up to half of the budget; the rest is left to blocks read back. */
  private static final double MEMTABLE_SHARE = 0.5;

  /** Small memtables: with a budget of a few MiB, a flush is small and frequent, not large. */
  private static final long MEMTABLE_BYTES = 4L * 1024 * 1024;

  private static final Cache CACHE = new LRUCache(BUDGET_BYTES, -1, false, 0.1);

  private static final WriteBufferManager WRITE_BUFFERS =
      new WriteBufferManager((long) (BUDGET_BYTES * MEMTABLE_SHARE), CACHE);

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    // Streams hands over its own table settings (bloom filters, block size); keep them
    BlockBasedTableConfig table =
        options.tableFormatConfig() instanceof BlockBasedTableConfig given
            ? given
            : new BlockBasedTableConfig();
    table.setBlockCache(CACHE);
    // index and filter blocks count against the budget too, instead of growing beside it
    table.setCacheIndexAndFilterBlocks(true);
    table.setCacheIndexAndFilterBlocksWithHighPriority(true);
    table.setPinTopLevelIndexAndFilter(true);
    options.setTableFormatConfig(table);
    options.setWriteBufferManager(WRITE_BUFFERS);
    options.setWriteBufferSize(MEMTABLE_BYTES);
    options.setMaxWriteBufferNumber(2);
  }

  @Override
  public void close(String storeName, Options options) {
    // the cache and the write buffer manager are shared by the other stores: never closed here
  }
}
