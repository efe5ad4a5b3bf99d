package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Where push-notification configs are kept so that every replica knows them and a restart keeps
 * them. {@link #put} and {@link #remove} return once the change is durable; {@link #follow} hands
 * over every stored config and then every later change, whichever replica made it.
 */
public interface PushConfigStore extends AutoCloseable {

  /**
   * One stored config: the task, the config as the client sees it, the payload form of the protocol
   * it was registered over, and the task's A2A state then (pushes start at the next change).
   */
  record Entry(String taskId, ObjectNode config, String form, String state) {
    public String configId() {
      return config.get("id").asText();
    }
  }

  /** Gets the stored configs and then each change; a removal comes as {@code removed}. */
  interface Listener {
    void stored(Entry entry);

    void removed(String taskId, String configId);
  }

  void put(Entry entry);

  void remove(String taskId, String configId);

  /**
   * Replays what is stored to {@code listener}, then follows changes; called once, before serving.
   */
  void follow(Listener listener);

  @Override
  void close();

  /** This process's memory only: for tests and a gateway without a shared store. */
  static PushConfigStore inMemory() {
    return new PushConfigStore() {
      private volatile Listener listener;

      @Override
      public void put(Entry entry) {
        if (listener != null) {
          listener.stored(entry);
        }
      }

      @Override
      public void remove(String taskId, String configId) {
        if (listener != null) {
          listener.removed(taskId, configId);
        }
      }

      @Override
      public void follow(Listener l) {
        this.listener = l;
      }

      @Override
      public void close() {}
    };
  }
}
