package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** task events -> fold into the {@code tasks} store -> one task update per accepted change. */
public final class TaskTopology {
  private TaskTopology() {}

  public static StreamsBuilder build(StreamsBuilder builder, TaskTopics topics) {
    builder.addStateStore(Stores.keyValueStoreBuilder(
        Stores.persistentKeyValueStore(topics.storeName()), Serdes.String(), TaskTopics.STATE_SERDE));
    builder.stream(topics.events().name(), Consumed.with(topics.events().keySerde(), topics.events().valueSerde()))
        .process(() -> new FoldProcessor(topics.storeName()), topics.storeName())
        .to(topics.updates().name(), Produced.with(topics.updates().keySerde(), topics.updates().valueSerde()));
    return builder;
  }

  /** Applies {@link TaskFold} to the stored state of the event's task. */
  static final class FoldProcessor implements Processor<String, TaskEvent, String, TaskUpdate> {
    private static final Logger LOG = LoggerFactory.getLogger(FoldProcessor.class);
    private final String storeName;
    private ProcessorContext<String, TaskUpdate> context;
    private KeyValueStore<String, TaskState> store;

    FoldProcessor(String storeName) {
      this.storeName = storeName;
    }

    @Override
    public void init(ProcessorContext<String, TaskUpdate> context) {
      this.context = context;
      this.store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<String, TaskEvent> record) {
      TaskEvent event = record.value();
      if (event == null || record.key() == null) {
        return;
      }
      try {
        TaskFold.apply(store.get(record.key()), event).ifPresent(result -> {
          store.put(record.key(), result.state());
          context.forward(record.withValue(result.update()));
        });
      } catch (IllegalArgumentException bad) {
        // a malformed event must not stop the fold of every other task
        LOG.warn("skipping task event {} of task {}: {}", event.eventId(), record.key(), bad.getMessage());
      }
    }
  }
}
