package io.statesweep.s3;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.statesweep.api.failures.RunLockException;
import io.statesweep.plan.LineText;
import io.statesweep.store.ConditionProbe;
import io.statesweep.store.DeleteResult;
import io.statesweep.store.DeleteTarget;
import io.statesweep.store.ObjectContent;
import io.statesweep.store.ObjectStore;
import io.statesweep.store.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One statesweep run at a time per export: a lock object under statesweep's own key beside the
 * prefix ({@code cogram.statesweep/lock}, never inside the exporter's folder), created with PutObject
 * {@code If-None-Match: *} and holding who runs, where, since when and until when. The holder renews
 * it while the run lasts; a lock past its expiry (its run died) is taken over with a write conditional
 * on the stale lock's ETag, so two runs can never both hold it. The holder deletes it, conditionally,
 * when the run ends.
 *
 * <p>Two clocks and a cancel that takes time stand between a holder and a run that takes its lock over, so
 * both keep a {@linkplain #takeoverMargin margin} (a sixth of the ttl, at most a minute, written in the lock):
 * a stale lock is taken over only once its expiry plus that margin has passed on the taker's clock, and the
 * holder counts its lock lost that margin before the expiry on its own. Between the two lie twice the margin,
 * for a skew of the clocks and the deletes already sent.
 *
 * <p>The lock is lost when a renewal finds another run's lock in its place, or when renewals keep failing
 * until the margin before the expiry of the last one that succeeded (another run may take it over from the
 * margin after it). Either way the listeners given to {@link #onLost} are called at once, so that the run can
 * stop deleting before the other run starts.
 *
 * <p>All of this rests on the store refusing a second create ({@code If-None-Match: *}): {@link #probe} finds
 * out, before the lock is taken, whether it does.
 */
public final class RunLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RunLock.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_LOCK_BYTES = 64 * 1024;
  private static final int ATTEMPTS = 5;
  /** How often the renewer looks whether the lock has expired while its renewals fail or hang. */
  private static final long EXPIRY_CHECK_MILLIS = 100;
  private static final java.time.format.DateTimeFormatter PROBE_TIME =
      java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(java.time.ZoneOffset.UTC);

  /** The most a {@linkplain #takeoverMargin margin} is, whatever the ttl. */
  private static final Duration MOST_MARGIN = Duration.ofMinutes(1);

  /**
   * Who holds a lock, as its object says.
   *
   * @param margin the holder's {@linkplain #takeoverMargin margin}: it stops counting on the lock that long before
   *     {@code expiresAt}, and a run takes it over no sooner than that long after
   */
  public record Holder(String owner, String host, Instant startedAt, Instant expiresAt, Duration margin) {
    public Holder {
      requireNonNull(owner, "owner is null");
      requireNonNull(host, "host is null");
      requireNonNull(startedAt, "startedAt is null");
      requireNonNull(expiresAt, "expiresAt is null");
      requireNonNull(margin, "margin is null");
      if (margin.isNegative()) {
        throw new IllegalArgumentException("takeover_margin is negative: " + margin);
      }
    }

    /** When another run may take this lock over: its expiry plus its margin. */
    public Instant takeoverAt() {
      return expiresAt.plus(margin);
    }

    String describe() {
      return owner + " on " + host + " since " + startedAt + " (lock valid until " + expiresAt
          + ", renewed while that run lasts)";
    }
  }

  /**
   * The margin kept on each side of a lock's expiry, for a lock renewed every third of {@code ttl}: a sixth of it,
   * at most a minute (10 s for a ttl of one minute, a minute for the default ten). Its holder stops counting on it
   * this long before the expiry, after two renewals failed in a row; a run takes it over this long after.
   */
  public static Duration takeoverMargin(Duration ttl) {
    Duration sixth = ttl.dividedBy(6);
    return sixth.compareTo(MOST_MARGIN) < 0 ? sixth : MOST_MARGIN;
  }

  private final ObjectStore store;
  private final String key;
  private final Duration ttl;
  private final Clock clock;
  private final Holder holder;
  private final List<Runnable> lossListeners = new ArrayList<>();
  private volatile String lossReason;
  private volatile String etag;
  /** The expiry that the lock object says, as this run last wrote it. */
  private volatile Instant validUntil;
  private volatile String lastRenewalError;
  private ScheduledExecutorService renewer;

  private RunLock(ObjectStore store, String key, Duration ttl, Clock clock, Holder holder, String etag) {
    this.store = store;
    this.key = key;
    this.ttl = ttl;
    this.clock = clock;
    this.holder = holder;
    this.etag = etag;
    this.validUntil = holder.expiresAt();
  }

  /** The lock key of an export prefix: beside it, in statesweep's own folder. */
  public static String keyFor(String prefix) {
    requireNonNull(prefix, "prefix is null");
    return prefix.isEmpty() ? ".statesweep/lock" : prefix.substring(0, prefix.length() - 1) + ".statesweep/lock";
  }

  /**
   * Finds out whether the store honours PutObject {@code If-None-Match: *}, on which the lock rests, with a
   * probe object of its own beside the lock ({@code cogram.statesweep/probe-lock-<time>-<random>}: two
   * PutObject and one DeleteObjects, {@link ConditionProbe#conditionalWrites}). Run it before {@link #acquire}:
   * on a store that ignores the condition, taking the lock would write over another run's.
   */
  public static ConditionProbe probe(ObjectStore store, String key) {
    requireNonNull(store, "store is null");
    String folder = key.substring(0, key.lastIndexOf('/') + 1);
    String id = PROBE_TIME.format(Instant.now()) + "-" + String.format("%08x",
        java.util.concurrent.ThreadLocalRandom.current().nextInt());
    return ConditionProbe.conditionalWrites(store, folder + "probe-lock-" + id);
  }

  /**
   * Takes the lock on a store that ignores {@code If-None-Match: *} (the risk accepted: pipeline/README.md, "One run at
   * a time"): reads it first, and throws {@link RunLockException.Held} while another run's unexpired lock is there,
   * then takes it as {@link #acquire} does (one GetObject more). This keeps out a run that started before; two runs
   * that start at the same moment can both hold it.
   */
  public static RunLock acquireWithoutConditionalWrites(ObjectStore store, String key, String owner, String host,
      Duration ttl, Clock clock) {
    requireNonNull(store, "store is null");
    requireNonNull(key, "key is null");
    checkTtl(ttl);
    try {
      ObjectContent current = unlessDenied(() -> store.read(key, MAX_LOCK_BYTES), store, key, "s3:GetObject");
      if (current != null) {
        Holder other = parse(current.bytes(), store.bucket(), key, takeoverMargin(ttl));
        if (clock.instant().isBefore(other.takeoverAt())) {
          throw held(store, key, other);
        }
      }
      return take(store, key, owner, host, ttl, clock);
    } catch (StoreException e) {
      throw new RunLockException.Unavailable("Cannot take the run lock s3://" + store.bucket() + "/" + key + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Takes the lock, or throws {@link RunLockException.Held} naming the run that holds it,
   * {@link RunLockException.Denied} naming the permission the store refused, or {@link RunLockException.Unavailable}
   * with the store's answer.
   *
   * @param owner who asks, such as {@code "statesweep run (pid 4242)"}
   */
  public static RunLock acquire(ObjectStore store, String key, String owner, String host, Duration ttl, Clock clock) {
    requireNonNull(store, "store is null");
    requireNonNull(key, "key is null");
    checkTtl(ttl);
    try {
      return take(store, key, owner, host, ttl, clock);
    } catch (StoreException e) {
      throw new RunLockException.Unavailable("Cannot take the run lock s3://" + store.bucket() + "/" + key + ": "
          + e.getMessage(), e);
    }
  }

  private static void checkTtl(Duration ttl) {
    if (ttl.compareTo(Duration.ofSeconds(3)) < 0) {
      throw new IllegalArgumentException("lock ttl must be at least 3 seconds: " + ttl);
    }
  }

  private static RunLockException.Held held(ObjectStore store, String key, Holder other) {
    return new RunLockException.Held("Another statesweep run holds the lock s3://" + store.bucket() + "/" + key + ": "
        + other.describe() + ". Wait for it to finish; if it died, its lock expires at " + other.expiresAt()
        + " and a run takes it over from " + other.takeoverAt() + " (" + other.margin().toMillis()
        + " ms after, for clocks that differ)");
  }

  private static RunLock take(ObjectStore store, String key, String owner, String host, Duration ttl, Clock clock) {
    Instant now = clock.instant();
    Duration margin = takeoverMargin(ttl);
    Holder me = new Holder(owner, host, now, now.plus(ttl), margin);
    byte[] mine = json(me);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      String created = unlessDenied(() -> store.createIfAbsent(key, mine), store, key, "s3:PutObject");
      if (created != null) {
        LOG.info("Took the lock s3://{}/{} until {}", store.bucket(), LineText.escape(key), me.expiresAt());
        return new RunLock(store, key, ttl, clock, me, created);
      }
      ObjectContent current = unlessDenied(() -> store.read(key, MAX_LOCK_BYTES), store, key, "s3:GetObject");
      if (current == null) {
        continue; // released between our create and our read: try again
      }
      if (Arrays.equals(current.bytes(), mine)) {
        // Our own create went through but its answer was lost, and the SDK's retry found the lock taken.
        LOG.info("Took the lock s3://{}/{} until {} (the answer to its creation was lost)", store.bucket(),
            LineText.escape(key),
            me.expiresAt());
        return new RunLock(store, key, ttl, clock, me, current.object().etag());
      }
      Holder other = parse(current.bytes(), store.bucket(), key, margin);
      if (clock.instant().isBefore(other.takeoverAt())) {
        throw held(store, key, other);
      }
      Instant renewedNow = clock.instant();
      Holder takeover = new Holder(owner, host, renewedNow, renewedNow.plus(ttl), margin);
      String replaced = unlessDenied(() -> store.replaceIfMatch(key, json(takeover), current.object().etag()), store,
          key, "s3:PutObject");
      if (replaced != null) {
        LOG.warn("Took over the stale lock s3://{}/{} of {}", store.bucket(), LineText.escape(key),
            LineText.escape(other.describe()));
        return new RunLock(store, key, ttl, clock, takeover, replaced);
      }
      // Another run took the stale lock first, or it was released: look again.
    }
    throw new RunLockException.Held("Could not take the lock s3://" + store.bucket() + "/" + key + " in " + ATTEMPTS
        + " attempts: other runs are taking it at the same time");
  }

  /**
   * The request's answer; an AccessDenied becomes a {@link RunLockException.Denied} naming {@code permission} on
   * statesweep's folder (and, for writes, the KMS permission of SSE-KMS buckets).
   */
  private static <T> T unlessDenied(java.util.function.Supplier<T> request, ObjectStore store, String key,
      String permission) {
    try {
      return request.get();
    } catch (StoreException e) {
      if (!e.isAccessDenied()) {
        throw e;
      }
      String folder = key.substring(0, key.lastIndexOf('/') + 1);
      throw new RunLockException.Denied("Cannot take the run lock: " + e.getMessage() + ". Missing permission: "
          + permission
          + " on arn:aws:s3:::" + store.bucket() + "/" + folder + "*"
          + (permission.equals("s3:PutObject") ? " (and kms:GenerateDataKey on the bucket's KMS key if it uses SSE-KMS)"
          : "") + "; conf/deploy/iam-policy.json grants what the run lock needs", permission, e);
    }
  }

  /**
   * Renews the lock every third of its ttl until {@link #close()}, on a daemon thread, and on another
   * one looks every {@value #EXPIRY_CHECK_MILLIS} ms whether it expired, even while a renewal hangs.
   */
  public RunLock renewInBackground() {
    long period = Math.max(1000, ttl.toMillis() / 3);
    renewer = Executors.newScheduledThreadPool(2, runnable -> {
      Thread thread = new Thread(runnable, "statesweep-lock-renewer");
      thread.setDaemon(true);
      return thread;
    });
    renewer.scheduleAtFixedRate(this::renewQuietly, period, period, TimeUnit.MILLISECONDS);
    renewer.scheduleAtFixedRate(this::checkExpiry, EXPIRY_CHECK_MILLIS, EXPIRY_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Calls {@code listener} once, as soon as the lock is lost (at once if it already is). Listeners run on
   * the thread that finds the loss (the renewer's) and must not block; one that throws is logged and the
   * others still run.
   */
  public RunLock onLost(Runnable listener) {
    requireNonNull(listener, "listener is null");
    synchronized (lossListeners) {
      if (lossReason == null) {
        lossListeners.add(listener);
        return this;
      }
    }
    callListener(listener);
    return this;
  }

  /** Extends the lock by its ttl from now; false (and {@link #lost()}) when another run has it now. */
  public boolean renew() {
    if (lossReason != null) {
      return false;
    }
    Instant now = clock.instant();
    Holder renewed = new Holder(holder.owner(), holder.host(), holder.startedAt(), now.plus(ttl), holder.margin());
    byte[] mine = json(renewed);
    String next = store.replaceIfMatch(key, mine, etag);
    if (next == null) {
      // The answer to our own replace may have been lost and the retry refused: then the lock is ours.
      ObjectContent current = store.read(key, MAX_LOCK_BYTES);
      if (current == null || !Arrays.equals(current.bytes(), mine)) {
        lose(current == null ? "it was removed while this run held it"
            : "another run took it over: " + holderOf(current));
        return false;
      }
      next = current.object().etag();
    }
    etag = next;
    validUntil = renewed.expiresAt();
    lastRenewalError = null;
    return true;
  }

  /** Who holds the lock now, as far as its document says. */
  private String holderOf(ObjectContent current) {
    try {
      return parse(current.bytes(), store.bucket(), key, holder.margin()).describe();
    } catch (RunLockException.Held e) {
      return "its document is not a statesweep lock";
    }
  }

  /** A renewal of the renewer: a failure is retried at the next period while the lock has not expired. */
  void renewQuietly() {
    try {
      renew();
    } catch (RuntimeException e) {
      if (lossReason != null) {
        return; // lost meanwhile (or closed): nothing to retry
      }
      lastRenewalError = e.getMessage();
      LOG.warn("Cannot renew the lock s3://{}/{} (valid until {}): {}", store.bucket(), LineText.escape(key), validUntil,
          LineText.escape(e.getMessage()));
      checkExpiry();
    }
  }

  /**
   * Loses the lock when the clock has reached the margin before the expiry of its last successful write: another
   * run may take it over from the margin after the expiry (on its own clock), so this run stops counting on it
   * while twice the margin still lies between them, even if no renewal has failed yet (one may hang).
   */
  void checkExpiry() {
    Instant expiry = validUntil;
    Instant stopAt = expiry.minus(holder.margin());
    if (lossReason == null && !clock.instant().isBefore(stopAt)) {
      String error = lastRenewalError;
      lose("it could not be renewed by " + stopAt + ", " + holder.margin().toMillis() + " ms before it expires at "
          + expiry + (error == null ? "" : " (" + error + ")") + ", so another run may take it over from "
          + expiry.plus(holder.margin()));
    }
  }

  private void lose(String reason) {
    List<Runnable> listeners;
    synchronized (lossListeners) {
      if (lossReason != null) {
        return;
      }
      lossReason = reason;
      listeners = List.copyOf(lossListeners);
      lossListeners.clear();
    }
    LOG.error("Lost the lock s3://{}/{}: {}", store.bucket(), LineText.escape(key), LineText.escape(reason));
    listeners.forEach(this::callListener);
  }

  private void callListener(Runnable listener) {
    try {
      listener.run();
    } catch (RuntimeException e) {
      LOG.error("A listener of the loss of the lock s3://{}/{} failed: {}", store.bucket(), LineText.escape(key),
          LineText.escape(e.toString()), e);
    }
  }

  /** Whether this run lost the lock while it was held: see {@link #lossReason()}. */
  public boolean lost() {
    return lossReason != null;
  }

  /**
   * Why the lock was lost, such as {@code another run took it over: <holder>}, or null while it is held.
   */
  public String lossReason() {
    return lossReason;
  }

  public Holder holder() {
    return holder;
  }

  public String key() {
    return key;
  }

  /** Stops renewing and deletes the lock if it is still this run's. */
  @Override
  public void close() {
    if (renewer != null) {
      renewer.shutdownNow();
    }
    if (lossReason != null) {
      return;
    }
    DeleteResult result;
    try {
      result = store.delete(java.util.List.of(new DeleteTarget(key, etag)));
    } catch (RuntimeException e) {
      // The JVM may be going down (an OutOfMemoryError stops Spark and the client's threads): the lock then stays
      // until its lease runs out, and the next run takes it over.
      LOG.warn("Did not delete the lock s3://{}/{}; it stays until its lease runs out: {}", store.bucket(),
          LineText.escape(key), LineText.escape(String.valueOf(e)));
      return;
    }
    if (!result.errors().isEmpty()) {
      LOG.warn("Did not delete the lock s3://{}/{}: {}", store.bucket(), LineText.escape(key),
          LineText.escape(String.valueOf(result.errors())));
    }
  }

  static byte[] json(Holder holder) {
    ObjectNode node = JSON.createObjectNode();
    node.put("owner", holder.owner());
    node.put("host", holder.host());
    node.put("started_at", holder.startedAt().toString());
    node.put("expires_at", holder.expiresAt().toString());
    node.put("takeover_margin", holder.margin().toString());
    node.put("tool", "statesweep");
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The holder a lock document names; a document without {@code takeover_margin} (written before there was one)
   * takes {@code defaultMargin}, the reader's own.
   */
  static Holder parse(byte[] bytes, String bucket, String key, Duration defaultMargin) {
    try {
      JsonNode node = JSON.readTree(bytes);
      JsonNode margin = node.get("takeover_margin");
      return new Holder(node.get("owner").asText(), node.get("host").asText(),
          Instant.parse(node.get("started_at").asText()), Instant.parse(node.get("expires_at").asText()),
          margin == null ? defaultMargin : Duration.parse(margin.asText()));
    } catch (IOException | RuntimeException e) {
      // Never guess that an unreadable lock is free: a person decides.
      throw new RunLockException.Held("The lock s3://" + bucket + "/" + key + " is not a statesweep lock document ("
          + e.getMessage() + "): if no statesweep run is active, delete it and run again");
    }
  }
}
