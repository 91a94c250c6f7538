package io.statesweep.store;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * Whether the store honours a condition that statesweep's safety rests on, as a probe on an object of
 * statesweep's own beside the export found out (pipeline/README.md, "Deleting" and "One run at a time"): PutObject
 * {@code If-None-Match: *}, on which the run lock rests, and GET {@code If-Match}, with which execute reads a
 * state file again before it deletes. A probe that cannot be written or answered leaves the condition
 * {@link Verdict#UNVERIFIED}, and says why.
 *
 * @param reason what the probe saw, naming its key, such as {@code the store wrote <key> a second time although
 *     PutObject said If-None-Match: *}
 */
public record ConditionProbe(Verdict verdict, String reason) {
  /** An ETag that no probe object has (32 zeros, no MD5 of its content). */
  public static final String WRONG_ETAG = "00000000000000000000000000000000";

  /** What the store does with the condition. */
  public enum Verdict {
    /** It refused the request whose condition did not hold, as S3 does. */
    HONOURED,
    /** It carried out the request whose condition did not hold. */
    IGNORED,
    /** The probe could not tell (it could not be written or read): the condition is sent and relied on as before. */
    UNVERIFIED;

    /** As the summary pairs give it: {@code honoured}, {@code ignored} or {@code unverified}. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ConditionProbe {
    requireNonNull(verdict, "verdict is null");
    requireNonNull(reason, "reason is null");
  }

  public static ConditionProbe unverified(String reason) {
    return new ConditionProbe(Verdict.UNVERIFIED, reason);
  }

  public boolean ignored() {
    return verdict == Verdict.IGNORED;
  }

  /** The verdict and why, for the log and the run's record: {@code ignored (the store wrote ...)}. */
  public String describe() {
    return verdict.label() + " (" + reason + ")";
  }

  /**
   * PutObject {@code If-None-Match: *}: creates {@code probeKey}, creates it again, and deletes it (two
   * PutObject, one DeleteObjects). The second create must be refused: a store that writes it again lets two
   * runs both take the run lock. A first create that fails (for want of s3:PutObject, say) leaves nothing to
   * delete.
   */
  public static ConditionProbe conditionalWrites(ObjectStore store, String probeKey) {
    requireNonNull(store, "store is null");
    requireNonNull(probeKey, "probeKey is null");
    String created;
    try {
      created = store.createIfAbsent(probeKey, content("first"));
    } catch (StoreException e) {
      return unverified(cannotWrite(probeKey, e));
    }
    try {
      if (created == null) {
        // No other writer uses the key: the answer to our own create was lost and its retry refused, or the store
        // refuses creates. Either way the second create could not tell.
        return unverified("the store refused to create the probe " + probeKey + ", a key nothing else writes");
      }
      return store.createIfAbsent(probeKey, content("second")) == null
          ? new ConditionProbe(Verdict.HONOURED, "the store refused to write " + probeKey
              + " a second time with If-None-Match: *")
          : new ConditionProbe(Verdict.IGNORED, "the store wrote " + probeKey
              + " a second time although PutObject said If-None-Match: *");
    } catch (StoreException e) {
      return unverified("cannot write the probe " + probeKey + " a second time: " + e.errorCode());
    } finally {
      deleteQuietly(store, probeKey);
    }
  }

  /**
   * GET {@code If-Match}: asks for {@code probeKey}, an object that exists, naming an ETag it does not have
   * (one GetObject). A store that answers with the object ignores the condition.
   */
  public static ConditionProbe conditionalReads(ObjectStore store, String probeKey) {
    requireNonNull(store, "store is null");
    requireNonNull(probeKey, "probeKey is null");
    try {
      return store.refusesGetIfMatch(probeKey, WRONG_ETAG)
          ? new ConditionProbe(Verdict.HONOURED, "the store refused a GET of " + probeKey
              + " whose If-Match named another ETag")
          : new ConditionProbe(Verdict.IGNORED, "the store answered a GET of " + probeKey
              + " whose If-Match named another ETag with the object");
    } catch (StoreException e) {
      return unverified("cannot read the probe " + probeKey + ": " + e.errorCode()
          + (e.isAccessDenied() ? "; it needs s3:GetObject on that key" : ""));
    }
  }

  /** Why a probe object could not be written, naming what it needs when the store denied it. */
  public static String cannotWrite(String probeKey, StoreException e) {
    return "cannot write the probe " + probeKey + ": " + e.errorCode() + (e.isAccessDenied()
        ? "; it needs s3:PutObject on that key (and kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS)"
        : "");
  }

  /** Deletes a probe object; a leftover is statesweep's own object beside the prefix, and harmless. */
  public static void deleteQuietly(ObjectStore store, String probeKey) {
    try {
      store.delete(List.of(new DeleteTarget(probeKey, null)));
    } catch (StoreException e) {
      // harmless: see above
    }
  }

  private static byte[] content(String which) {
    return ("statesweep probe (" + which + " write): safe to delete").getBytes(StandardCharsets.UTF_8);
  }
}
