package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.LineText;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out once per attempt what the store does with the conditions execute sends (pipeline/README.md, "Deleting"): it
 * writes a probe object under statesweep's own key beside the export prefix (never inside it, never in the exporter's
 * folder), asks for it with GET and a wrong If-Match (conditional reads), with
 * {@code --conditional-deletes auto} asks to delete it with a wrong ETag (conditional deletes), and deletes it.
 */
public final class ConditionalDeleteProbe {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalDeleteProbe.class);

  private ConditionalDeleteProbe() {}

  /** The answer, and why, for the run's record. */
  public record Answer(ConditionalDeletes mode, String reason) {
    public Answer {
      requireNonNull(mode, "mode is null");
      requireNonNull(reason, "reason is null");
    }

    public String describe() {
      return mode.name().toLowerCase(java.util.Locale.ROOT) + " (" + reason + ")";
    }
  }

  /** What an attempt's probes found: how it deletes, and whether the store honours GET If-Match. */
  public record Findings(Answer deletes, ConditionProbe reads) {
    public Findings {
      requireNonNull(deletes, "deletes is null");
      requireNonNull(reads, "reads is null");
    }

    /** At the bucket root "beside the prefix" would be inside the export: no probe there. */
    public static Findings atBucketRoot(ConditionalMode mode) {
      return new Findings(set(mode, "unverified: no probe at the bucket root"),
          ConditionProbe.unverified("no probe at the bucket root"));
    }
  }

  /**
   * The probes on one object, {@code probeKey}: one PutObject, one GetObject, and one DeleteObjects to remove
   * it, with {@code auto} one DeleteObjects more. {@code on} and {@code off} are taken as set.
   */
  public static Findings detect(ObjectStore store, String probeKey, ConditionalMode mode) {
    requireNonNull(mode, "mode is null");
    try {
      store.write(probeKey, "statesweep probe: safe to delete".getBytes(StandardCharsets.UTF_8));
    } catch (StoreException e) {
      // Sending the conditions costs nothing where they are ignored, and protects where they are not.
      String reason = ConditionProbe.cannotWrite(probeKey, e);
      LOG.warn("Conditional deletes and reads unverified: {}", LineText.escape(reason));
      return new Findings(set(mode, "unverified: " + reason), ConditionProbe.unverified(reason));
    }
    try {
      ConditionProbe reads = ConditionProbe.conditionalReads(store, probeKey);
      return new Findings(mode == ConditionalMode.AUTO ? deletes(store, probeKey) : set(mode, "set"), reads);
    } finally {
      ConditionProbe.deleteQuietly(store, probeKey);
    }
  }

  private static Answer set(ConditionalMode mode, String autoReason) {
    return switch (mode) {
      case ON -> new Answer(ConditionalDeletes.ON, "set");
      case OFF -> new Answer(ConditionalDeletes.OFF, "set");
      case AUTO -> new Answer(ConditionalDeletes.ON, autoReason);
    };
  }

  /** Asks to delete the probe with a wrong ETag (one DeleteObjects); the answer decides. */
  private static Answer deletes(ObjectStore store, String probeKey) {
    try {
      DeleteResult result = store.delete(List.of(new DeleteTarget(probeKey, ConditionProbe.WRONG_ETAG)));
      DeleteResult.KeyError error = result.errors().get(probeKey);
      if (error != null && error.isPreconditionFailed()) {
        return new Answer(ConditionalDeletes.ON, "detected: the store refused a delete with a wrong ETag");
      }
      if (result.deleted().contains(probeKey)) {
        return new Answer(ConditionalDeletes.OFF, "detected: the store ignores the ETag of a delete");
      }
      return new Answer(ConditionalDeletes.ON, "unverified: the probe answered " + error);
    } catch (StoreException e) {
      return new Answer(ConditionalDeletes.OFF, "detected: the store rejects conditional deletes: " + e.errorCode());
    }
  }
}
