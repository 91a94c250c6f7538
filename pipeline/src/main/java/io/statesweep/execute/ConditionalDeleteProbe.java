package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.s3.DeleteResult;
import io.statesweep.s3.DeleteTarget;
import io.statesweep.s3.ObjectStore;
import io.statesweep.s3.StoreException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out once per run whether the store honours the ETag of a DeleteObjects entry: it writes a
 * probe object under statesweep's own key beside the export prefix (never inside it, never in the
 * exporter's folder), asks to delete it with a wrong ETag, and looks at the answer.
 */
public final class ConditionalDeleteProbe {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalDeleteProbe.class);
  private static final String WRONG_ETAG = "00000000000000000000000000000000";

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

  public static Answer detect(ObjectStore store, String probeKey) {
    try {
      store.write(probeKey, "statesweep probe: safe to delete".getBytes(StandardCharsets.UTF_8));
    } catch (StoreException e) {
      // Sending the ETags costs nothing where they are ignored, and protects where they are not.
      String reason = "unverified: cannot write the probe " + probeKey + ": " + e.errorCode()
          + (e.isAccessDenied() ? "; it needs s3:PutObject on that key (and kms:GenerateDataKey on the bucket's KMS key if it"
              + " uses SSE-KMS)" : "");
      LOG.warn("Conditional deletes on, {}", reason);
      return new Answer(ConditionalDeletes.ON, reason);
    }
    try {
      DeleteResult result = store.delete(List.of(new DeleteTarget(probeKey, WRONG_ETAG)));
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
    } finally {
      try {
        store.delete(List.of(new DeleteTarget(probeKey, null)));
      } catch (StoreException e) {
        // The probe is statesweep's own object beside the prefix; a leftover is harmless.
      }
    }
  }
}
