package io.taskmesh.gateway.a2a.push;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the configs an ended task was notified with, a while after the end (they stay readable
 * for GetTaskPushNotificationConfig until then), so the compacted topic does not keep every config
 * ever made. Only the delivering replica does it, so each config gets one tombstone; every replica
 * forgets the config as the removal arrives. A config registered after the end is never notified
 * and is kept; a restart before the retention is over forgets the plan, and those configs stay.
 */
final class EndedConfigCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(EndedConfigCleanup.class);

  private final PushConfigStore store;
  private final PushWatches watches;
  private final Duration retention;
  private final ScheduledExecutorService scheduler;

  EndedConfigCleanup(
      PushConfigStore store,
      PushWatches watches,
      Duration retention,
      ScheduledExecutorService scheduler) {
    this.store = store;
    this.watches = watches;
    this.retention = retention;
    this.scheduler = scheduler;
  }

  void forgetLater(String taskId, List<PushConfigStore.Entry> notified) {
    try {
      scheduler.schedule(
          () -> notified.forEach(c -> forget(taskId, c.configId())),
          retention.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      LOG.debug("push: closing, the configs of task {} are kept", taskId);
    }
  }

  private void forget(String taskId, String configId) {
    try {
      if (watches.get(taskId, configId).isPresent()) {
        store.remove(taskId, configId);
        watches.unapply(taskId, configId);
      }
    } catch (RuntimeException e) {
      LOG.warn("push: config {} of ended task {} not removed: {}", configId, taskId, e.toString());
    }
  }
}
