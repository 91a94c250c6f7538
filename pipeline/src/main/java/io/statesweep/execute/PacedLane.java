package io.statesweep.execute;

import static java.util.Objects.requireNonNull;

import io.statesweep.plan.LineText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The deletes of one lane of the key space, a folder (pipeline/README.md, "Deleting at the bucket's speed"), paced by
 * what the store answers. Each lane has a {@link DeleteThrottle} of its own under the run's. Lanes side by side in key
 * order are taken to share an S3 partition until the store shows otherwise (S3 partitions are key ranges, and an
 * archive written at the exporter's pace has few): they form a <b>group</b>, whose rate is paced as a whole (additive
 * increase while the store accepts, multiplicative decrease when it answers SlowDown) under one throttle that its lanes
 * share, as the tasks of a JVM share the run's. All lanes start in one group; a lane seen later joins its neighbour's,
 * unless that group learnt its partition's rate: then it starts a group beside it, as the other half of a split.
 * <ul>
 *   <li>A group starts at {@link Pacing#startKeysPerSecond()} and doubles its rate each second in which its lanes
 *       used at least half of it, up to its limit, until its first SlowDown (a slow start, as TCP's: that SlowDown
 *       halves the rate and teaches nothing, as the rate doubled past the partition's by up to twice). From then on it
 *       climbs {@link Pacing#stepKeysPerSecond()} per such second; a group that learnt its limit climbs half the way
 *       back to it per second (at least the step): the limit is already the margin below where SlowDown came.</li>
 *   <li>The limit is S3's documented rate per partitioned prefix ({@link Pacing#partitionKeysPerSecond()}), with the
 *       exporter's margin below it when the margin is on; once a SlowDown came, that margin below the group's rate
 *       when it came: the exporter, writing into the same partition, keeps its share.</li>
 *   <li>A SlowDown halves the group's rate, once per second, and only for requests sent a second or more after its
 *       last decrease ({@link #GRACE_NANOS}: the store sheds load until the overload's second has aged out, and an
 *       SDK retry answers seconds later, from the rate before).</li>
 *   <li>A group that sent at its limit for {@link Pacing#probeAfterSeconds()} without a SlowDown probes: it splits
 *       in two by key order, each half with half the rate, the whole limit and nothing learnt (where they are in
 *       different partitions, each climbs to a partition's rate). Halves from which the store took, in a second,
 *       a fifth more keys than where the whole met SlowDown (or the documented rate) without a SlowDown are in
 *       different partitions: each starts afresh (a slow start, and the first probe's wait), so a group over many
 *       partitions splits down to them in a few probes' waits. A group of one lane raises its limit by a tenth
 *       instead, unless a SlowDown already showed its partition's rate with the margin on: nothing else goes above
 *       the documented rate.</li>
 *   <li>Halves of a split of which one meets SlowDown below the limit a group starts with, before either learnt its
 *       rate, share a partition (alone, it would have met none there): they become one group again, back at the
 *       limit of the group they split from, which held it without SlowDown, at half of it, climbing back; with the
 *       exporter's margin on they wait the longest wait before the next probe (the exporter meets SlowDown with
 *       each), without it twice as long again. So a split that was wrong costs one SlowDown, and a partition has one
 *       group, which alone climbs into it. (Groups that meet SlowDown in the same second are not taken to share
 *       one: groups at their limits probe at the same moments.) The half merged away hands its throttle over to the
 *       group ({@link DeleteThrottle#handOver}): windows that took it, and requests the SDK still retries, count in
 *       the group's rate.</li>
 *   <li>A split at the middle lane may fall inside a partition (a lane seen after it joins a group beside it);
 *       where SlowDown falls mends it. Lanes at a group's edge whose SlowDowns do not come with those of the rest of
 *       their group are in another partition: they move into the group beside them when their SlowDowns come with
 *       that group's, and go on as a group of their own otherwise ({@link Pacer#moveEdge}), on the evidence of their
 *       last SlowDowns, not of one second.</li>
 *   <li>A SlowDown near a learnt limit lowers it by a tenth (the exporter's uploads grew, or a lane of another
 *       partition was in the group); a group at its limit for a probe's wait without SlowDown climbs back towards
 *       the highest limit it held for a probe's wait, never above it, and a group that gave up lanes of another
 *       partition goes back to the highest it held or first learnt at once.</li>
 *   <li>Each SlowDown doubles the time a group waits at its limit before it probes, up to {@value #MAX_PROBE_WAITS}
 *       times the first: a group that keeps finding its partition's rate probes rarely, so the exporter's uploads
 *       seldom meet a SlowDown, and a range the store split for the load is found all the same.</li>
 * </ul>
 * Thread-safe: the tasks of an attempt in one JVM share the lanes ({@link Pacer}, held by
 * {@link SharedDeleteThrottle}).
 */
public final class PacedLane {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PacedLane.class);
  /** A lane's rate never falls below one key a second. */
  static final double FLOOR_KEYS_PER_SECOND = 1;
  private static final long SECOND = DeleteThrottle.SPAN_NANOS;
  /** A group waits at most this many times {@link Pacing#probeAfterSeconds()} at its limit before it probes. */
  static final int MAX_PROBE_WAITS = 64;
  /**
   * A SlowDown to a request sent within this long after the group's last decrease came from the rate before it: the
   * store counts writes over a sliding second, and sheds load until the overload of that second has aged out.
   */
  static final long GRACE_NANOS = SECOND;
  /**
   * Halves of a split whose keys taken in a second together pass this many times the rate where the whole met
   * SlowDown are in different partitions (a fifth more: the answers' times are not the store's).
   */
  static final double APART = 1.2;
  /** How many of its SlowDowns' seconds a lane remembers. */
  static final int REMEMBERED = 16;
  /**
   * The SlowDowns of a lane that show where its partition's edge is: at least {@value #EVIDENCE}, at most
   * {@value #EVIDENCE_MOST} of its latest, none older than {@value #EVIDENCE_SECONDS} seconds.
   */
  static final int EVIDENCE = 3;
  static final int EVIDENCE_MOST = 8;
  static final long EVIDENCE_SECONDS = 600;

  /**
   * How deletes are paced.
   *
   * @param startKeysPerSecond a group's first rate
   * @param stepKeysPerSecond what a group adds to its rate per second the store accepts it
   * @param partitionKeysPerSecond S3's documented rate per partitioned prefix, the limit until the store shows more
   * @param margin the exporter's share: after a SlowDown, a group stays this fraction below the rate at which it
   *     came (0: none; the group climbs back to it, and meets SlowDown again)
   * @param probeAfterSeconds seconds at the limit without a SlowDown before a group probes (splits, or tries a
   *     tenth more), at first: each SlowDown doubles it for the group
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
     * seconds; {@code margin} below it, and below where a SlowDown came; a range split, or a tenth more tried,
     * after 5 seconds at the limit (a split that was wrong costs one SlowDown, and doubles that wait).
     */
    public static Pacing s3(double partitionKeysPerSecond, double margin) {
      return new Pacing(Math.max(FLOOR_KEYS_PER_SECOND, partitionKeysPerSecond / 7),
          Math.max(1, partitionKeysPerSecond / 35), partitionKeysPerSecond, margin, 5);
    }
  }

  private final String name;
  /** The run's throttle: of an unpaced lane, and above a paced lane's group's. */
  private final DeleteThrottle run;
  /** The pacer of paced lanes; null for a lane that only counts its SlowDowns. */
  private final Pacer pacer;
  private volatile Group group;
  private long slowDowns;
  private long untaken;
  /** When the lane was last asked for or answered ({@link DeleteThrottle.Ticker#nanoTime()}). */
  private volatile long lastUsed;
  /**
   * The last {@value #REMEMBERED} distinct seconds ({@link DeleteThrottle.Ticker#nanoTime()} over a second) in which
   * the lane got a SlowDown answer, a ring (the pacer's lock): where SlowDown falls shows a partition's edge.
   */
  private final long[] slowDownSeconds = new long[REMEMBERED];
  private int slowDownSecondsHeld;

  private PacedLane(String name, DeleteThrottle run, Pacer pacer) {
    this.name = requireNonNull(name, "name is null");
    this.run = requireNonNull(run, "run is null");
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

  /**
   * The throttle every request of the lane reserves its keys from: its group's, shared by the group's lanes as the
   * run's is by tasks (the run's ceiling holds through it too). A window takes it once, at its start: a window
   * that began before a split goes on under the throttle it began with.
   */
  public DeleteThrottle throttle() {
    Group now = group;
    return now == null ? run : now.throttle;
  }

  /** The lane's rate now: its group's. */
  public double rate() {
    return throttle().ownCeiling();
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

  /** The lane met SlowDown in {@code second}; returns whether it had not in that second yet (the pacer's lock). */
  private boolean metSlowDown(long second) {
    if (slowDownSecondsHeld > 0 && slowDownSeconds[(slowDownSecondsHeld - 1) % REMEMBERED] == second) {
      return false;
    }
    slowDownSeconds[slowDownSecondsHeld % REMEMBERED] = second;
    slowDownSecondsHeld++;
    return true;
  }

  /** The seconds of the lane's last {@code most} SlowDowns since {@code since}, the latest first. */
  private long[] slowDownSecondsSince(long since, int most) {
    int count = Math.min(Math.min(most, REMEMBERED), slowDownSecondsHeld);
    long[] seconds = new long[count];
    int taken = 0;
    for (int i = 0; i < count; i++) {
      long second = slowDownSeconds[(slowDownSecondsHeld - 1 - i) % REMEMBERED];
      if (second < since) {
        break;
      }
      seconds[taken++] = second;
    }
    return taken == count ? seconds : java.util.Arrays.copyOf(seconds, taken);
  }

  /** Of {@code seconds}, how many the lane met SlowDown in, the second before or the one after (the pacer's lock). */
  private int metAround(long[] seconds) {
    int met = 0;
    int held = Math.min(slowDownSecondsHeld, REMEMBERED);
    for (long second : seconds) {
      for (int i = 0; i < held; i++) {
        if (Math.abs(slowDownSeconds[i] - second) <= 1) {
          met++;
          break;
        }
      }
    }
    return met;
  }

  /** A request of {@code keys} keys was answered after {@code throttled} SlowDown answers (503, 429, or per key). */
  public void answered(int keys, int throttled) {
    answered(keys, throttled, Long.MAX_VALUE);
  }

  /**
   * As above, for a request sent at {@code sentAt} ({@link DeleteThrottle.Ticker#nanoTime()}): a SlowDown to a
   * request sent before the group's last decrease (an SDK retry of it comes seconds later) came from the rate
   * before it, and decreases nothing more; it is counted all the same.
   */
  public void answered(int keys, int throttled, long sentAt) {
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
    pacer.answered(this, keys, throttled, sentAt);
  }

  /** The time source of the lane's throttle. */
  long nanoTime() {
    return run.ticker().nanoTime();
  }

  /** The limit of the lane's group. */
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

  /** The lanes of one attempt in one JVM, under its run's throttle, and their groups. */
  static final class Pacer {
    /** A lane that nothing asked for or answered in this long, with no SlowDowns left to take, is let go. */
    static final long IDLE_NANOS = 60 * SECOND;
    /** The null of a JVM whose deletes are not paced: its lanes only count their SlowDowns. */
    private final Pacing pacing;
    private final DeleteThrottle run;
    private final DeleteThrottle.Ticker ticker;
    /**
     * By name, so by key order: a new lane joins the group of the lane before it (or after it). Only lanes in use:
     * an archive of millions of folders holds a few here at a time.
     */
    private final java.util.concurrent.ConcurrentSkipListMap<String, PacedLane> lanes =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    private long lastSweep;

    Pacer(Pacing pacing, DeleteThrottle run) {
      this.pacing = pacing;
      this.run = requireNonNull(run, "run is null");
      this.ticker = run.ticker();
      this.lastSweep = ticker.nanoTime();
    }

    PacedLane lane(String name) {
      long now = ticker.nanoTime();
      PacedLane lane = lanes.get(name);
      if (lane != null) {
        lane.lastUsed = now;
        return lane;
      }
      synchronized (this) {
        sweep(now);
        lane = lanes.get(name);
        if (lane == null) {
          lane = new PacedLane(name, run, this);
          join(lane, now);
        }
        lane.lastUsed = now;
        return lane;
      }
    }

    /** {@code lane} joins the lanes, and the group of its neighbour in key order (or a group of its own). */
    private void join(PacedLane lane, long now) {
      if (pacing != null) {
        Map.Entry<String, PacedLane> neighbour = lanes.lowerEntry(lane.name);
        if (neighbour == null) {
          neighbour = lanes.higherEntry(lane.name);
        }
        Group beside = neighbour == null ? null : neighbour.getValue().group;
        Group group;
        if (beside == null) {
          group = new Group(pacing, run, now);
        } else if (!beside.learned) {
          group = beside;
        } else {
          // The neighbour's group knows its partition's rate, and adds nothing by taking one more lane: the lane
          // starts a group of its own, as the other half of a split would, and goes back to the neighbour's if
          // the two meet SlowDown together. Likely in the neighbour's partition, it starts on a share of the
          // neighbour's rate (which gives it up, and climbs back), not on top of it.
          double share = Math.max(FLOOR_KEYS_PER_SECOND, Math.min(pacing.startKeysPerSecond(), beside.rate / 2));
          beside.rate = Math.max(FLOOR_KEYS_PER_SECOND * Math.max(1, beside.lanes.size()), beside.rate - share);
          beside.share();
          group = new Group(pacing, run, now, share);
          group.throttle.countAlso(beside.throttle.counted(now));
          group.sibling = beside;
          group.splitFrom = beside.limit;
          beside.sibling = group;
          beside.splitFrom = beside.limit;
        }
        lane.group = group;
        group.lanes.add(lane);
      }
      lanes.put(lane.name, lane);
    }

    /**
     * Where SlowDown falls shows a partition's edge; called when {@code lane} met SlowDown in a second it had not yet.
     * The lane's evidence is the seconds of its last SlowDowns ({@value #EVIDENCE} to {@value #EVIDENCE_MOST}, of the
     * last {@value #EVIDENCE_SECONDS} s); a lane <em>came with</em> it when it met SlowDown within a second of at
     * least half of them. The lanes of its group side by side with it that came with it are its <b>block</b>, in its
     * partition; the group's other lanes, of which none came with a third of them, are in another:
     * <ul>
     *   <li>a block at an edge of its group leaves it: into the group beside that edge when the lane beside it came
     *       with it (their partition), else as a group of its own, on its lanes' share of the group's rate;</li>
     *   <li>a block that is its whole group goes into the group beside it when the lane beside it came with it (its
     *       throttle is handed over): two groups of one partition.</li>
     * </ul>
     * One second is no evidence: partitions side by side meet SlowDown in the same second as often as their groups
     * climb together, and a lane moved on one coincidence moved the wrong way as often as the right one. A group's
     * edge so follows its partition's, wherever a split or a lane seen late put it; a group that gave up lanes of
     * another partition lowered its limit for that partition's SlowDowns: it goes back to the highest it held or
     * first learnt.
     */
    private void moveEdge(PacedLane lane, long now) {
      Group group = lane.group;
      long second = Math.floorDiv(now, SECOND);
      long[] evidence = lane.slowDownSecondsSince(second - EVIDENCE_SECONDS, EVIDENCE_MOST);
      if (evidence.length < EVIDENCE) {
        return;
      }
      List<PacedLane> ordered = new ArrayList<>(group.lanes);
      int at = ordered.indexOf(lane);
      int from = at;
      int to = at;
      while (from > 0 && cameWith(ordered.get(from - 1), evidence)) {
        from--;
      }
      while (to < ordered.size() - 1 && cameWith(ordered.get(to + 1), evidence)) {
        to++;
      }
      List<PacedLane> block = new ArrayList<>(ordered.subList(from, to + 1));
      boolean whole = block.size() == ordered.size();
      if (!whole) {
        if (from > 0 && to < ordered.size() - 1) {
          return; // inside the group: its edges move first
        }
        for (PacedLane other : ordered) {
          if (!block.contains(other) && 3 * other.metAround(evidence) > evidence.length) {
            return; // the rest of the group met SlowDown with it too: one partition, or no telling
          }
        }
      }
      for (boolean down : new boolean[] {true, false}) {
        if (!whole && (down ? from != 0 : to != ordered.size() - 1)) {
          continue;
        }
        Map.Entry<String, PacedLane> beside = down ? lanes.lowerEntry(block.get(0).name)
            : lanes.higherEntry(block.get(block.size() - 1).name);
        Group into = beside == null ? null : beside.getValue().group;
        boolean withBeside = into != null && into != group && cameWith(beside.getValue(), evidence);
        if (withBeside) {
          LOG.info("Deletes of {} met SlowDown in {} seconds of late, {} beside them in {} of those, the rest of"
              + " their group in at most a third: one partition with {}, they go on in that group", blockName(block),
              evidence.length, LineText.escape(beside.getValue().name), beside.getValue().metAround(evidence), into);
          moveInto(block, group, into);
          return;
        }
        if (!whole) {
          LOG.info("Deletes of {} met SlowDown in {} seconds of late, the rest of {} in at most a third of those:"
              + " another partition, they go on as a group of their own", blockName(block), evidence.length, group);
          double share = Math.max(FLOOR_KEYS_PER_SECOND * block.size(),
              group.rate * block.size() / ordered.size());
          Group own = new Group(pacing, run, now, share);
          own.throttle.countAlso(group.throttle.counted(now)); // never more than the group sent, for a second
          group.rate = Math.max(FLOOR_KEYS_PER_SECOND * (ordered.size() - block.size()), group.rate - share);
          moveInto(block, group, own);
          return;
        }
      }
    }

    /** Whether {@code other} met SlowDown within a second of at least half of {@code evidence}'s seconds. */
    private static boolean cameWith(PacedLane other, long[] evidence) {
      return 2 * other.metAround(evidence) >= evidence.length;
    }

    private static String blockName(List<PacedLane> block) {
      String first = LineText.escape(block.get(0).name);
      return block.size() == 1 ? "lane " + first : block.size() + " lanes from " + first;
    }

    /** {@code block}, lanes at an edge of {@code group} (or all of them), go on in {@code into}. */
    private static void moveInto(List<PacedLane> block, Group group, Group into) {
      for (PacedLane moved : block) {
        group.lanes.remove(moved);
        moved.group = into;
        into.lanes.add(moved);
      }
      into.share();
      if (group.lanes.isEmpty()) {
        group.throttle.handOver(into.throttle);
        if (group.sibling != null && group.sibling.sibling == group) {
          group.sibling.sibling = null;
        }
        group.sibling = null;
      } else {
        group.gaveUpLanes();
        group.share();
      }
    }

    /** Lets go of the lanes idle for {@link #IDLE_NANOS} whose SlowDowns were taken; every 10 s at most. */
    private void sweep(long now) {
      if (now - lastSweep < 10 * SECOND) {
        return;
      }
      lastSweep = now;
      for (java.util.Iterator<PacedLane> it = lanes.values().iterator(); it.hasNext(); ) {
        PacedLane lane = it.next();
        if (now - lane.lastUsed > IDLE_NANOS && lane.untaken == 0) {
          it.remove();
          if (lane.group != null) {
            lane.group.lanes.remove(lane);
          }
        }
      }
    }

    /** How many lanes are held now. */
    int size() {
      return lanes.size();
    }

    Iterable<PacedLane> lanes() {
      return lanes.values();
    }

    /** How many groups the lanes are in now. */
    synchronized int groups() {
      return (int) lanes.values().stream().map(lane -> lane.group).distinct().count();
    }

    synchronized void answered(PacedLane lane, int keys, int throttled, long sentAt) {
      long now = ticker.nanoTime();
      PacedLane held = lanes.get(lane.name);
      if (held == null) {
        // Let go while a window still held it (a record verified for longer than a minute): it is in use again.
        if (lane.group != null && lane.group.lanes.isEmpty()) {
          lane.group = null;
        }
        if (lane.group == null) {
          join(lane, now);
        } else {
          lane.group.lanes.add(lane);
          lanes.put(lane.name, lane);
        }
        held = lane;
      }
      held.lastUsed = now;
      if (throttled > 0) {
        held.slowDowns += throttled;
        held.untaken += throttled;
      }
      if (pacing == null) {
        return;
      }
      // A lane let go and asked for again meanwhile has a new object: the answer is the new one's, in its group.
      Group group = held.group;
      if (throttled > 0) {
        boolean newSecond = held.metSlowDown(Math.floorDiv(now, SECOND));
        Group sibling = group.slowedDown(now, Math.min(sentAt, now));
        if (sibling != null) {
          group.merge(sibling, now);
        } else if (newSecond) {
          moveEdge(held, now);
        }
        return;
      }
      group.accepted(now, keys);
    }
  }

  /** Lanes taken to share a partition, and their rate together: one throttle for all of them. */
  private static final class Group {
    private final Pacing pacing;
    private final DeleteThrottle run;
    final DeleteThrottle throttle;
    /** In key order. */
    private final java.util.TreeSet<PacedLane> lanes =
        new java.util.TreeSet<>(java.util.Comparator.comparing(PacedLane::name));
    double rate;
    double limit;
    /** Whether a SlowDown set {@link #limit} (with the margin on) since the group began. */
    boolean learned;
    /**
     * The highest limit the group held for a probe's wait without SlowDown since it learnt its rate (0: none yet): a
     * later SlowDown near the limit lowers the limit by a tenth, and a group at its limit for a probe's wait without
     * SlowDown climbs half the way back to this one, never above: the partition took it, the exporter's share kept.
     */
    double held;
    /** The limit the group first learnt: the margin below where its partition first answered SlowDown. */
    double learnt;
    /** Seconds at the limit before the group probes: {@link Pacing#probeAfterSeconds()}, doubled per SlowDown. */
    long probeWait;
    /** The rate at the last SlowDown. */
    double cameAt;
    /**
     * The other half of this group's last split (or the learnt group beside whose lanes this one began), until they
     * became one again or either split again.
     */
    Group sibling;
    /** The limit of the group this one split from. */
    double splitFrom;
    /** When the group took its lanes (it began, or split): a SlowDown to a request sent before is not its own. */
    long since;
    long lastRaise;
    /** Keys accepted since {@link #lastRaise}. */
    long acceptedKeys;
    long lastSlowDown = Long.MIN_VALUE / 2;
    long atLimitSince = Long.MIN_VALUE;
    /** Whether the group doubles its rate per second: it began afresh and met no SlowDown since. */
    boolean slowStart;
    /** Keys the store accepted from the group in the last second, sliding: when each answer came, and its keys. */
    private final java.util.ArrayDeque<long[]> acceptedLately = new java.util.ArrayDeque<>();
    private long acceptedInLastSecond;

    /** A group that begins afresh: a slow start from the start rate. */
    Group(Pacing pacing, DeleteThrottle run, long now) {
      this(pacing, run, now, pacing.startKeysPerSecond());
      slowStart = true;
    }

    Group(Pacing pacing, DeleteThrottle run, long now, double rate) {
      this.pacing = pacing;
      this.run = run;
      this.rate = rate;
      this.limit = Math.max(rate, pacing.partitionKeysPerSecond() * (1 - pacing.margin()));
      this.probeWait = pacing.probeAfterSeconds();
      this.lastRaise = now;
      this.since = now;
      this.throttle = new DeleteThrottle(rate, run.ticker(), run, true);
    }

    /** The group's throttle takes its rate. */
    void share() {
      throttle.setCeiling(rate);
    }

    /**
     * A SlowDown answered a request sent at {@code sentAt}; returns the group that shares this one's partition and
     * should become one with it, or null.
     */
    Group slowedDown(long now, long sentAt) {
      if (now - lastSlowDown < SECOND || sentAt < lastSlowDown + GRACE_NANOS || sentAt < since) {
        return null; // the same second's, or sent before the last decrease had its effect, or the split's
      }
      cameAt = rate;
      if (slowStart) {
        // Doubling, the rate passed the partition's by up to twice: half of it was taken; climb from there.
        slowStart = false;
        rate = Math.max(FLOOR_KEYS_PER_SECOND * Math.max(1, lanes.size()), rate / 2);
        lastSlowDown = now;
        lastRaise = now;
        atLimitSince = Long.MIN_VALUE;
        share();
        LOG.info("Deletes of {} met SlowDown at {} keys/s starting: now {} keys/s, climbing", this, Math.round(cameAt),
            Math.round(rate));
        return null;
      }
      // Alone in a partition, a half would have met no SlowDown below the documented rate (less the exporter's share).
      double alone = pacing.partitionKeysPerSecond() * Math.min(1 - pacing.margin(), 0.9);
      Group shares = sibling != null && sibling.sibling == this && !learned && rate < alone
          && !sibling.lanes.isEmpty() ? sibling : null;
      rate = Math.max(FLOOR_KEYS_PER_SECOND * Math.max(1, lanes.size()), rate / 2);
      if (pacing.margin() > 0) {
        // The first SlowDown says where the partition is; a later one, below it, comes as often from the retries
        // and uploads around it as from a smaller partition: near the limit it lowers it by a tenth at most, far
        // below it (under four fifths) not at all.
        double below = cameAt * (1 - pacing.margin());
        if (!learned) {
          limit = Math.max(rate, below);
          learnt = limit;
          held = 0;
        } else if (cameAt >= 0.8 * limit) {
          limit = Math.max(rate, Math.min(limit, Math.max(below, limit * 0.9)));
        } // far below its limit, a SlowDown comes from the load around the group: its rate backs off, its limit stays
        learned = true;
      }
      lastSlowDown = now;
      lastRaise = now;
      atLimitSince = Long.MIN_VALUE;
      probeWait = Math.min(probeWait * 2, (long) pacing.probeAfterSeconds() * MAX_PROBE_WAITS);
      share();
      LOG.info("Deletes of {} met SlowDown at {} keys/s: now {} keys/s, at most {}", this, Math.round(cameAt),
          Math.round(rate), Math.round(limit));
      return shares;
    }

    /**
     * {@code other}, the other half of this group's split, shares its partition, which answered SlowDown to this
     * half: its lanes join this group, which goes back to the limit of the group they split from (held for a probe's
     * wait without SlowDown: the partition takes it), at half of it, climbing back: the partition is still busy with
     * the halves' retries, and at once at the limit it answers SlowDown again, which would lower the limit for good.
     */
    void merge(Group other, long now) {
      for (PacedLane lane : other.lanes) {
        lane.group = this;
        lanes.add(lane);
      }
      other.lanes.clear();
      // Windows that took the other half's throttle go on under this group's, which counts its keys until they age out.
      other.throttle.handOver(throttle);
      sibling = null;
      double cameTogether = cameAt + other.rate;
      limit = Math.max(FLOOR_KEYS_PER_SECOND * lanes.size(), splitFrom);
      learned = pacing.margin() > 0;
      learnt = limit;
      held = limit;
      slowStart = false;
      rate = Math.max(FLOOR_KEYS_PER_SECOND * lanes.size(), limit / 2);
      // A split that was wrong. With the exporter's margin on, the partition is known to be shared at this rate and
      // each probe costs the exporter a second of SlowDowns: the next waits the longest wait. Without it, twice as
      // long again (the SlowDown doubled it already).
      long longest = (long) pacing.probeAfterSeconds() * MAX_PROBE_WAITS;
      probeWait = pacing.margin() > 0 ? longest : Math.min(Math.max(probeWait, other.probeWait) * 2, longest);
      lastSlowDown = now;
      lastRaise = now;
      acceptedKeys = 0;
      atLimitSince = Long.MIN_VALUE;
      share();
      LOG.info("Deletes of {} met SlowDown at {} keys/s as two halves: one partition, now {} keys/s, at most {}",
          this, Math.round(cameTogether), Math.round(rate), Math.round(limit));
    }

    /**
     * Lanes at the group's edge, of another partition, left it (into the group beside it, or a group of their own):
     * the SlowDowns of that partition lowered this group's limit, which goes back to the highest it held or first
     * learnt (a SlowDown lowers it again where that was this partition's).
     */
    void gaveUpLanes() {
      if (learned && limit < Math.max(held, learnt)) {
        limit = Math.max(held, learnt);
      }
    }

    /** A request of {@code keys} keys was accepted. */
    void accepted(long now, int keys) {
      acceptedKeys += keys;
      acceptedLately.addLast(new long[] {now, keys});
      acceptedInLastSecond += keys;
      long seconds = (now - lastRaise) / SECOND;
      if (seconds < 1) {
        return;
      }
      lastRaise += seconds * SECOND;
      long used = acceptedKeys;
      acceptedKeys = 0;
      // At the limit only while its lanes sent at least half of it (a throttle's sliding second and the
      // verifications between requests leave less than the whole): a group held back by its own verifications
      // showed nothing of what the store takes.
      boolean full = used >= seconds * rate / 2;
      if (!full) {
        atLimitSince = Long.MIN_VALUE;
      }
      if (rate >= limit && full) {
        if (atLimitSince == Long.MIN_VALUE) {
          atLimitSince = now;
        } else if (now - atLimitSince >= probeWait * SECOND) {
          atLimitSince = Long.MIN_VALUE;
          if (learned && limit < held) {
            // SlowDowns near the limit lowered it below one it held (the exporter's uploads grew for a while, a
            // neighbour's retries, a lane of another partition): the store has taken this one for a probe's wait,
            // so half the way back to the one it held.
            double from = limit;
            limit = Math.min(held, limit + Math.max(pacing.stepKeysPerSecond(), (held - limit) / 2));
            LOG.info("Deletes of {} ran at {} keys/s for {} s without SlowDown: at most {} again", this,
                Math.round(from), probeWait, Math.round(limit));
          } else if (lanes.size() > 1) {
            held = Math.max(held, limit);
            split(now);
          } else {
            held = Math.max(held, limit);
            if (pacing.margin() == 0 || !learned) {
              limit *= 1.1; // the store has taken the limit that long: try a tenth more
            }
          }
        }
      }
      // Only a group that used its rate learns that the store takes it.
      if (full && rate < limit) {
        double step = seconds * pacing.stepKeysPerSecond();
        if (slowStart) {
          step = Math.max(step, rate * ((1L << Math.min(seconds, 8)) - 1));
        } else if (learned) {
          step = Math.max(step, (limit - rate) * (1 - Math.pow(0.5, seconds)));
        }
        rate = Math.min(limit, rate + step);
        if (rate >= limit) {
          slowStart = false; // at its limit: a SlowDown from here on is the partition's, and teaches its rate
        }
      }
      apart(now);
      share();
    }

    /** Keys accepted in the last second, sliding. */
    private long acceptedInLastSecond(long now) {
      while (!acceptedLately.isEmpty() && acceptedLately.peekFirst()[0] <= now - SECOND) {
        acceptedInLastSecond -= acceptedLately.pollFirst()[1];
      }
      return acceptedInLastSecond;
    }

    /**
     * Whether the store accepted from this group and the other half of its split, in the last second, a fifth more
     * keys than where the whole met SlowDown (or the documented rate), with no SlowDown: one partition would not
     * have taken them, so they are in different partitions, and each starts afresh (a slow start, the first probe's
     * wait), so that a group over many partitions splits down to them fast.
     */
    private void apart(long now) {
      Group other = sibling;
      if (other == null || other.sibling != this || learned || other.learned) {
        return;
      }
      double wholeMetSlowDownAt = splitFrom / (1 - pacing.margin());
      long together = acceptedInLastSecond(now) + other.acceptedInLastSecond(now);
      if (together <= APART * wholeMetSlowDownAt) {
        return;
      }
      for (Group half : new Group[] {this, other}) {
        half.sibling = null;
        half.slowStart = true;
        half.probeWait = pacing.probeAfterSeconds();
        half.atLimitSince = Long.MIN_VALUE;
      }
      LOG.info("Deletes of {} and of {} had {} keys taken in a second together without SlowDown: different"
          + " partitions", this, other, together);
    }

    /**
     * The lanes after the middle one in key order go to a group of their own; each group takes half the rate and the
     * whole limit, and learns its partition's rate afresh. A middle that is no partition's edge is mended where
     * SlowDown falls ({@link Pacer#moveEdge}).
     */
    private void split(long now) {
      rate = Math.max(FLOOR_KEYS_PER_SECOND, rate / 2);
      learned = false;
      slowStart = false;
      Group after = new Group(pacing, run, now, rate);
      // Each half counts what the whole sent in the last second: together they never send more than the whole did.
      after.throttle.countAlso(throttle.counted(now));
      after.limit = limit;
      after.probeWait = probeWait;
      if (sibling != null) {
        sibling.sibling = null;
      }
      after.sibling = this;
      sibling = after;
      splitFrom = limit;
      after.splitFrom = limit;
      since = now;
      int keep = lanes.size() / 2;
      List<PacedLane> moving = new ArrayList<>(lanes).subList(keep, lanes.size());
      for (PacedLane lane : moving) {
        lanes.remove(lane);
        lane.group = after;
        after.lanes.add(lane);
      }
      LOG.info("Deletes of {} ran at {} keys/s for {} s without SlowDown: {} go on as a group of their own", this,
          Math.round(limit), probeWait, after);
    }

    @Override
    public String toString() {
      String first = lanes.isEmpty() ? "?" : LineText.escape(lanes.first().name);
      return lanes.size() <= 1 ? "lane " + first : "lanes " + first + " and " + (lanes.size() - 1) + " more";
    }
  }
}
