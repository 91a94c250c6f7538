package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The deletes of one lane of the key space, a folder (README, "Deleting at the bucket's speed"), paced by what the
 * store answers. Each lane has a {@link DeleteThrottle} of its own under the run's. Lanes that meet SlowDown in the
 * same second while their rates add up to about one partition's are taken to share an S3 partition from then on:
 * they form one <b>group</b>, whose rate is paced as a whole (additive increase while the store accepts,
 * multiplicative decrease when it answers SlowDown) and shared evenly by its lanes that are deleting. A lane that
 * never met SlowDown so with another is a group of its own; lanes that each reached a partition's rate are not
 * taken together, whenever their SlowDowns come.
 * <ul>
 *   <li>A group starts at {@link Pacing#startKeysPerSecond()} and climbs {@link Pacing#stepKeysPerSecond()} per
 *       second in which its lanes used at least half its rate and met no SlowDown, up to its limit.</li>
 *   <li>The limit is S3's documented rate per partitioned prefix ({@link Pacing#partitionKeysPerSecond()}) or,
 *       once a SlowDown came with the exporter's margin on, that margin below the group's rate when it came: the
 *       exporter, writing into the same partition, keeps its share.</li>
 *   <li>A SlowDown halves the group's rate, once per second however many of that second's requests it answers
 *       (they all came from the same rate).</li>
 *   <li>A group at its limit for {@link Pacing#probeAfterSeconds()} without a SlowDown raises the limit by a tenth:
 *       that is how a partition that S3 split since, or one that always took more, shows it takes more. Nothing
 *       else goes above the documented rate. With the margin on, a group that met SlowDown probes no more: it
 *       knows its partition's rate, and each probe past it would throttle the exporter's uploads.</li>
 * </ul>
 * Thread-safe: the tasks of an attempt in one JVM share the lanes ({@link Pacer}, held by
 * {@link SharedDeleteThrottle}).
 */
public final class PacedLane {
  /** A lane's rate never falls below one key a second. */
  static final double FLOOR_KEYS_PER_SECOND = 1;
  private static final long SECOND = DeleteThrottle.SPAN_NANOS;

  /**
   * How deletes are paced.
   *
   * @param startKeysPerSecond a group's first rate
   * @param stepKeysPerSecond what a group adds to its rate per second the store accepts it
   * @param partitionKeysPerSecond S3's documented rate per partitioned prefix, the limit until the store shows more
   * @param margin the exporter's share: after a SlowDown, a group stays this fraction below the rate at which it
   *     came (0: none; the group climbs back to it, and meets SlowDown again)
   * @param probeAfterSeconds seconds at the limit without a SlowDown before a group tries a tenth more
   */
  public record Pacing(double startKeysPerSecond, double stepKeysPerSecond, double partitionKeysPerSecond,
      double margin, int probeAfterSeconds) implements java.io.Serializable {
    public Pacing {
      if (!(startKeysPerSecond >= FLOOR_KEYS_PER_SECOND) || !(partitionKeysPerSecond >= startKeysPerSecond)) {
        throw new IllegalArgumentException("a lane starts at " + FLOOR_KEYS_PER_SECOND + " key per second or more,"
            + " at most at the partition's rate: start " + startKeysPerSecond + ", partition " + partitionKeysPerSecond);
      }
      if (!(stepKeysPerSecond > 0) || !(margin >= 0 && margin < 1) || probeAfterSeconds < 1) {
        throw new IllegalArgumentException("step must be positive, margin from 0 to below 1, probe after 1 second or"
            + " more: " + stepKeysPerSecond + ", " + margin + ", " + probeAfterSeconds);
      }
    }

    /**
     * A limit of {@code partitionKeysPerSecond} (S3 documents 3,500 writes per second per partitioned prefix), a
     * start of a seventh of it (500 for 3,500), climbing a thirty-fifth of it a second (100): the limit in 30
     * seconds; {@code margin} below where a SlowDown came; a tenth more tried after a minute at the limit.
     */
    public static Pacing s3(double partitionKeysPerSecond, double margin) {
      return new Pacing(Math.max(FLOOR_KEYS_PER_SECOND, partitionKeysPerSecond / 7),
          Math.max(1, partitionKeysPerSecond / 35), partitionKeysPerSecond, margin, 60);
    }
  }

  private final String name;
  private final DeleteThrottle throttle;
  /** The pacer of paced lanes; null for a lane that only counts its SlowDowns. */
  private final Pacer pacer;
  private Group group;
  private int deleting;
  private long slowDowns;
  private long untaken;

  private PacedLane(String name, DeleteThrottle throttle, Pacer pacer) {
    this.name = requireNonNull(name, "name is null");
    this.throttle = requireNonNull(throttle, "throttle is null");
    this.pacer = pacer;
  }

  /** A lane that is not paced: its requests go under {@code run} alone; it counts its SlowDowns. */
  static PacedLane unpaced(String name, DeleteThrottle run) {
    return new PacedLane(name, run, null);
  }

  /**
   * The lane of a key: its first {@code depth} folders below {@code prefix} (fewer where the key has fewer), such as
   * {@code projects/p1/} at depth 2; the empty string for a key directly under the prefix.
   */
  public static String of(String key, String prefix, int depth) {
    if (depth < 1) {
      throw new IllegalArgumentException("depth must be at least 1: " + depth);
    }
    int from = key.startsWith(prefix) ? prefix.length() : 0;
    int end = from;
    for (int level = 0; level < depth; level++) {
      int slash = key.indexOf('/', end);
      if (slash < 0) {
        break;
      }
      end = slash + 1;
    }
    return key.substring(from, end);
  }

  /** The lane's folder. */
  public String name() {
    return name;
  }

  /** The throttle every request of the lane reserves its keys from (the run's ceiling holds through it too). */
  public DeleteThrottle throttle() {
    return throttle;
  }

  /** The lane's rate now: its share of its group's. */
  public double rate() {
    return throttle.ownCeiling();
  }

  /** SlowDown answers the lane's requests got, those the SDK retried included. */
  public long slowDowns() {
    synchronized (lock()) {
      return slowDowns;
    }
  }

  /** The SlowDowns since the last call. */
  long takeSlowDowns() {
    synchronized (lock()) {
      long taken = untaken;
      untaken = 0;
      return taken;
    }
  }

  private Object lock() {
    return pacer == null ? this : pacer;
  }

  /** A window of the lane's records begins deleting: the lane takes its share of its group's rate. */
  void begin() {
    if (pacer != null) {
      synchronized (pacer) {
        deleting++;
        if (deleting == 1) {
          group.share();
        }
      }
    }
  }

  /** The window ended: the lane's share goes to the others of its group. */
  void end() {
    if (pacer != null) {
      synchronized (pacer) {
        deleting--;
        if (deleting == 0) {
          group.share();
        }
      }
    }
  }

  /** A request of {@code keys} keys was answered after {@code throttled} SlowDown answers (503, 429, or per key). */
  public void answered(int keys, int throttled) {
    if (keys < 0 || throttled < 0) {
      throw new IllegalArgumentException("keys and throttled must not be negative: " + keys + ", " + throttled);
    }
    if (pacer == null) {
      if (throttled > 0) {
        synchronized (this) {
          slowDowns += throttled;
          untaken += throttled;
        }
      }
      return;
    }
    pacer.answered(this, throttled);
  }

  /** The rate of the lane's group, and its limit. */
  double groupRate() {
    synchronized (pacer) {
      return group.rate;
    }
  }

  double groupLimit() {
    synchronized (pacer) {
      return group.limit;
    }
  }

  /** Whether the two lanes are taken to share a partition. */
  boolean sharesWith(PacedLane other) {
    synchronized (pacer) {
      return group == other.group;
    }
  }

  /**
   * The lanes of one attempt in one JVM, under its run's throttle, and their groups.
   */
  static final class Pacer {
    private final Pacing pacing;
    private final DeleteThrottle run;
    private final DeleteThrottle.Ticker ticker;
    private final Map<String, PacedLane> lanes = new ConcurrentHashMap<>();
    /** Groups that met SlowDown, and when: a group that meets it within a second of another's joins it. */
    private final List<Group> lastSlowed = new ArrayList<>();

    Pacer(Pacing pacing, DeleteThrottle run) {
      this.pacing = requireNonNull(pacing, "pacing is null");
      this.run = requireNonNull(run, "run is null");
      this.ticker = run.ticker();
    }

    PacedLane lane(String name) {
      PacedLane lane = lanes.get(name);
      if (lane != null) {
        return lane;
      }
      synchronized (this) {
        return lanes.computeIfAbsent(name, folder -> {
          PacedLane made = new PacedLane(folder, new DeleteThrottle(pacing.startKeysPerSecond(), ticker, run, true),
              this);
          made.group = new Group(made, pacing, ticker.nanoTime());
          return made;
        });
      }
    }

    Iterable<PacedLane> lanes() {
      return lanes.values();
    }

    synchronized void answered(PacedLane lane, int throttled) {
      long now = ticker.nanoTime();
      Group group = lane.group;
      if (throttled > 0) {
        lane.slowDowns += throttled;
        lane.untaken += throttled;
        lastSlowed.removeIf(other -> now - other.lastSlowDown >= SECOND || other.lanes.isEmpty());
        for (Group other : new ArrayList<>(lastSlowed)) {
          // Together they could be one partition only if their rates add up to about one partition's: lanes
          // that each reached a partition's rate before meeting SlowDown are in partitions of their own.
          double one = Math.max(pacing.partitionKeysPerSecond(), Math.max(group.limit, other.limit));
          if (other != group && group.rate + other.rate <= 1.25 * one) {
            group = merge(group, other);
          }
        }
        group.slowedDown(now);
        if (!lastSlowed.contains(group)) {
          lastSlowed.add(group);
        }
        return;
      }
      group.accepted(now);
    }

    /** Two groups that met SlowDown in the same second: one group from now on, the sum of their rates. */
    private Group merge(Group into, Group other) {
      lastSlowed.remove(other);
      into.rate += other.rate;
      // One partition's rate (or what a probe showed), or what the two learnt together where that is less.
      into.limit = Math.min(Math.max(pacing.partitionKeysPerSecond(), Math.max(into.limit, other.limit)),
          into.limit + other.limit);
      into.learned = into.learned || other.learned;
      into.lastSlowDown = Math.max(into.lastSlowDown, other.lastSlowDown);
      for (PacedLane moved : other.lanes) {
        moved.group = into;
        into.lanes.add(moved);
      }
      other.lanes.clear();
      into.share();
      return into;
    }
  }

  /** Lanes taken to share a partition, and their rate together. */
  private static final class Group {
    private final Pacing pacing;
    private final Set<PacedLane> lanes = new LinkedHashSet<>();
    double rate;
    double limit;
    boolean learned;
    long lastRaise;
    long lastSlowDown = Long.MIN_VALUE / 2;
    long atLimitSince = Long.MIN_VALUE;

    Group(PacedLane first, Pacing pacing, long now) {
      this.pacing = pacing;
      this.rate = pacing.startKeysPerSecond();
      this.limit = pacing.partitionKeysPerSecond();
      this.lastRaise = now;
      lanes.add(first);
    }

    /** Lanes deleting now share the rate evenly; one that is not keeps the share it had. */
    void share() {
      int deleting = 0;
      for (PacedLane lane : lanes) {
        deleting += lane.deleting > 0 ? 1 : 0;
      }
      double each = Math.max(FLOOR_KEYS_PER_SECOND, rate / Math.max(1, deleting));
      for (PacedLane lane : lanes) {
        if (lane.deleting > 0 || deleting == 0) {
          lane.throttle.setCeiling(each);
        }
      }
    }

    void slowedDown(long now) {
      if (now - lastSlowDown < SECOND) {
        return;
      }
      double cameAt = rate;
      rate = Math.max(FLOOR_KEYS_PER_SECOND * Math.max(1, lanes.size()), rate / 2);
      if (pacing.margin() > 0) {
        limit = Math.max(rate, cameAt * (1 - pacing.margin()));
        learned = true;
      }
      lastSlowDown = now;
      lastRaise = now;
      atLimitSince = Long.MIN_VALUE;
      share();
    }

    void accepted(long now) {
      long seconds = (now - lastRaise) / SECOND;
      if (seconds < 1) {
        return;
      }
      lastRaise += seconds * SECOND;
      boolean probes = pacing.margin() == 0 || !learned;
      if (rate >= limit && probes) {
        if (atLimitSince == Long.MIN_VALUE) {
          atLimitSince = now;
        } else if (now - atLimitSince >= pacing.probeAfterSeconds() * SECOND) {
          limit *= 1.1; // the store has taken the limit that long: try a tenth more
          atLimitSince = Long.MIN_VALUE;
        }
      }
      // Only a group that used its rate learns that the store takes it.
      long used = 0;
      for (PacedLane lane : lanes) {
        used += lane.throttle.countedKeys(now);
      }
      if (used >= rate / 2 && rate < limit) {
        rate = Math.min(limit, rate + seconds * pacing.stepKeysPerSecond());
        share();
      }
    }
  }
}
