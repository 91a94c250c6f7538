package io.statesweep.jobs.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.statesweep.jobs.StatesweepCli;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.apache.spark.SparkEnv;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.execution.ui.SparkListenerSQLAdaptiveExecutionUpdate;
import org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart;

/**
 * Runs the statesweep command line ({@code StatesweepCli.main}, so exactly {@code statesweep plan ...})
 * in this JVM and measures its heap: the peak of heap used (sampled every 20 ms), the largest heap
 * still used after a full collection (live: what the run really needs; the peak only says how far
 * the collector let it grow; {@code -Dheap-probe.live-every-s=10} forces one every 10 s so that there
 * are such samples), both per plan phase, beside the peak of what Spark's memory manager had
 * handed out for cached blocks (storage) and for sorts, aggregations and joins (execution); full
 * collections the JVM needed (not counting the forced ones) and GC time; and the broadcast hash joins
 * of the SQL plans. Prints lines starting with {@code heap-probe} when the JVM exits (the command line
 * ends with System.exit).
 *
 * <p>Phases come from the Spark job group of each job ({@code statesweep-plan-<phase>}, {@code
 * statesweep-execute-<phase>}): register {@link Phases} with
 * {@code -Dspark.extraListeners=io.statesweep.jobs.bench.PlanHeapProbe$Phases}. Driver-side work before a phase's
 * first Spark job counts in the phase before it.
 *
 * <p>CPU: the whole JVM's CPU time ({@code OperatingSystemMXBean.getProcessCpuTime}) per phase (from its first job
 * to the next phase's) and at exit, and the tasks' CPU by job group (each task's executor CPU time, deserialization
 * included, as Spark measures it: the task's own thread only, not the threads it starts, such as a state-file read's
 * workers). Printed as a line starting with {@code heap-probe-cpu}.
 */
public final class PlanHeapProbe {
  static volatile String phase = "start-up";
  /** name -> {first seen ns, peak used, peak live, peak Spark storage memory, peak Spark execution memory} */
  private static final Map<String, long[]> PHASES = new LinkedHashMap<>();
  private static final AtomicLong PEAK_USED = new AtomicLong();
  private static final AtomicLong PEAK_LIVE = new AtomicLong();
  private static final AtomicLong MAJOR_GCS = new AtomicLong();
  private static final AtomicLong MINOR_GCS = new AtomicLong();
  private static final AtomicLong GC_MILLIS = new AtomicLong();
  private static final long STARTED = System.nanoTime();
  private static final Pattern BROADCAST_JOIN = Pattern.compile("BroadcastHashJoin (\\w+) (Build\\w+) \\((\\d+)\\)");
  private static final Pattern BROADCAST_KEYS = Pattern.compile(
      "\\((\\d+)\\) BroadcastHashJoin[^\\n]*\\nLeft keys \\[\\d+\\]: \\[([^\\]]*)\\]\\nRight keys \\[\\d+\\]: \\[([^\\]]*)\\]");
  private static final Set<String> BROADCAST_JOINS = new LinkedHashSet<>();
  /** Job group (less {@code statesweep-}) of every stage submitted, and the nanoseconds of CPU its tasks used. */
  private static final Map<Integer, String> STAGE_GROUPS = new ConcurrentHashMap<>();
  private static final Map<String, AtomicLong> TASK_CPU_NANOS = new ConcurrentHashMap<>();

  private PlanHeapProbe() {}

  /**
   * Sets the current phase from the job group of every Spark job, and notes every broadcast hash join
   * of the SQL plans (a build side collected into this JVM: what grows with the data if misjudged).
   */
  public static final class Phases extends SparkListener {
    @Override
    public void onJobStart(SparkListenerJobStart jobStart) {
      String group = jobStart.properties() == null ? null : jobStart.properties().getProperty("spark.jobGroup.id");
      // The plan makes its missing tables on a thread of its own beside its phases: those jobs start no phase.
      if (group != null && !group.equals("statesweep-plan-tables")) {
        enter(group.replaceFirst("^statesweep-plan-", "").replaceFirst("^statesweep-", ""));
      }
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
      String group = submitted.properties() == null ? null
          : submitted.properties().getProperty("spark.jobGroup.id");
      STAGE_GROUPS.put(submitted.stageInfo().stageId(), group == null ? "(no group)"
          : group.replaceFirst("^statesweep-", ""));
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
      if (taskEnd.taskMetrics() == null) {
        return;
      }
      String group = STAGE_GROUPS.getOrDefault(taskEnd.stageId(), "(no group)");
      TASK_CPU_NANOS.computeIfAbsent(group, name -> new AtomicLong()).addAndGet(
          taskEnd.taskMetrics().executorCpuTime() + taskEnd.taskMetrics().executorDeserializeCpuTime());
    }

    @Override
    public void onOtherEvent(SparkListenerEvent event) {
      String plan = null;
      String when = null;
      if (event instanceof SparkListenerSQLExecutionStart start) {
        plan = start.physicalPlanDescription();
        when = "planned";
      } else if (event instanceof SparkListenerSQLAdaptiveExecutionUpdate update) {
        plan = update.physicalPlanDescription();
        when = "adaptive";
      }
      if (plan == null) {
        return;
      }
      // The "formatted" plan description: a tree line per join, then its keys under its number.
      Map<String, String> builds = new LinkedHashMap<>();
      Matcher tree = BROADCAST_JOIN.matcher(plan);
      while (tree.find()) {
        builds.put(tree.group(3), tree.group(1) + " " + tree.group(2));
      }
      Matcher keys = BROADCAST_KEYS.matcher(plan);
      while (keys.find()) {
        String text = when + " " + builds.getOrDefault(keys.group(1), "?") + " on "
            + keys.group(2).replaceAll("#\\d+L?", "") + " = " + keys.group(3).replaceAll("#\\d+L?", "");
        synchronized (PlanHeapProbe.class) {
          BROADCAST_JOINS.add(text);
        }
      }
    }
  }

  static synchronized void enter(String name) {
    if (!name.equals(phase)) {
      phase = name;
      PHASES.computeIfAbsent(name, n -> new long[] {System.nanoTime(), 0, 0, 0, 0, processCpuNanos()});
    }
  }

  private static synchronized void record(int slot, long value) {
    long[] current = PHASES.computeIfAbsent(phase, n -> new long[] {System.nanoTime(), 0, 0, 0, 0,
        processCpuNanos()});
    current[slot] = Math.max(current[slot], value);
  }

  public static void main(String[] args) {
    PHASES.put(phase, new long[] {STARTED, 0, 0, 0, 0, 0});
    Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) collector).addNotificationListener((notification, handback) -> {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
          return;
        }
        GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        long after = 0;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
          if (heapPools.contains(pool.getKey())) {
            after += pool.getValue().getUsed();
          }
        }
        GC_MILLIS.addAndGet(info.getGcInfo().getDuration());
        if (!info.getGcAction().contains("major")) {
          MINOR_GCS.incrementAndGet();
          return;
        }
        // After a full collection, what is left is live: the heap the run needs at that moment. The
        // probe's own System.gc() calls (heap-probe.live-every-s) are not the JVM running out of room.
        if (!"System.gc()".equals(info.getGcCause())) {
          MAJOR_GCS.incrementAndGet();
        }
        PEAK_LIVE.accumulateAndGet(after, Math::max);
        record(2, after);
      }, null, null);
    }
    long liveEveryNanos = (long) (Double.parseDouble(System.getProperty("heap-probe.live-every-s", "0")) * 1e9);
    Thread sampler = new Thread(() -> {
      long lastLive = System.nanoTime();
      while (true) {
        if (liveEveryNanos > 0 && System.nanoTime() - lastLive > liveEveryNanos) {
          System.gc(); // a full collection: its notification records the live heap
          lastLive = System.nanoTime();
        }
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        PEAK_USED.accumulateAndGet(used, Math::max);
        record(1, used);
        // What Spark's unified memory manager has handed out: cached blocks, and pages of sorts,
        // aggregations and joins (both within spark.memory.fraction of the heap less 300 MB).
        SparkEnv env = SparkEnv.get();
        if (env != null) {
          record(3, env.memoryManager().storageMemoryUsed());
          record(4, env.memoryManager().executionMemoryUsed());
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "heap-probe");
    sampler.setDaemon(true);
    sampler.start();
    Runtime.getRuntime().addShutdownHook(new Thread(PlanHeapProbe::report, "heap-probe-report"));
    StatesweepCli.main(args);
  }

  private static synchronized void report() {
    long max = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax();
    StringBuilder phases = new StringBuilder();
    long[] previous = null;
    String previousName = null;
    for (Map.Entry<String, long[]> entry : PHASES.entrySet()) {
      if (previous != null) {
        phases.append(phaseText(previousName, previous, entry.getValue()[0])).append(',');
      }
      previous = entry.getValue();
      previousName = entry.getKey();
    }
    if (previous != null) {
      phases.append(phaseText(previousName, previous, System.nanoTime()));
    }
    System.out.printf("heap-probe: max_mb=%d peak_used_mb=%d peak_live_mb=%d full_gcs=%d young_gcs=%d gc_s=%.1f"
            + " wall_s=%.1f phases=%s%n", max >> 20, PEAK_USED.get() >> 20, PEAK_LIVE.get() >> 20,
        MAJOR_GCS.get(), MINOR_GCS.get(), GC_MILLIS.get() / 1e3, (System.nanoTime() - STARTED) / 1e9, phases);
    System.out.println("heap-probe-broadcast-joins: " + BROADCAST_JOINS.size() + " " + BROADCAST_JOINS);
    // The command line stops the session it made before it exits, and stopping drains the listener bus: every
    // task's end has been counted by now.
    long tasks = TASK_CPU_NANOS.values().stream().mapToLong(AtomicLong::get).sum();
    long process = processCpuNanos();
    StringBuilder cpu = new StringBuilder(String.format("heap-probe-cpu: cpu_process_s=%.3f cpu_tasks_s=%.3f",
        process / 1e9, tasks / 1e9));
    // The whole JVM's CPU from a phase's first job to the next phase's: every thread (tasks and the threads they
    // start, the driver, compilers, collector).
    String previousPhase = null;
    long previousCpu = 0;
    for (Map.Entry<String, long[]> entry : PHASES.entrySet()) {
      if (previousPhase != null) {
        cpu.append(String.format(" cpu_phase_s:%s=%.3f", previousPhase, (entry.getValue()[5] - previousCpu) / 1e9));
      }
      previousPhase = entry.getKey();
      previousCpu = entry.getValue()[5];
    }
    if (previousPhase != null) {
      cpu.append(String.format(" cpu_phase_s:%s=%.3f", previousPhase, (process - previousCpu) / 1e9));
    }
    new java.util.TreeMap<>(TASK_CPU_NANOS).forEach((group, nanos) ->
        cpu.append(String.format(" cpu_tasks_s:%s=%.3f", group, nanos.get() / 1e9)));
    System.out.println(cpu);
    System.out.flush();
  }

  /** This JVM's CPU time so far, every thread's. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** name:seconds/peak-used-MB/peak-live-MB/peak-storage-MB/peak-execution-MB */
  private static String phaseText(String name, long[] phase, long end) {
    return String.format("%s:%.1fs/%dMB/%dMB/%dMB/%dMB", name, (end - phase[0]) / 1e9, phase[1] >> 20, phase[2] >> 20,
        phase[3] >> 20, phase[4] >> 20);
  }
}
