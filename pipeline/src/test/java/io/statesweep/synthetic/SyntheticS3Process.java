package io.statesweep.synthetic;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A {@link SyntheticS3Server} in a JVM of its own, so that its threads, CPU allocation and memory do
 * not count in the JVM measured (a benchmark's Spark driver). {@link #start} launches it with the
 * caller's classpath; {@link #main} is the child: it prints {@code endpoint <url>} and then answers
 * commands on stdin, one a line ({@code counts}, {@code reset}, {@code deleted}, {@code heap}, {@code touch every
 * offset}), until
 * stdin closes.
 */
public final class SyntheticS3Process implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final Writer in;
  private final String endpoint;

  private SyntheticS3Process(Process process) throws IOException {
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
    this.in = new java.io.OutputStreamWriter(process.getOutputStream(), UTF_8);
    String line = out.readLine();
    if (line == null || !line.startsWith("endpoint ")) {
      process.destroyForcibly();
      throw new IOException("the synthetic S3 process did not start: " + line);
    }
    this.endpoint = line.substring("endpoint ".length());
  }

  /**
   * Starts a server of {@code archive} in a new JVM ({@code heap}, e.g. "256m") with the classpath
   * of this JVM. Its stderr goes to this JVM's stderr.
   */
  public static SyntheticS3Process start(String bucket, SyntheticArchive archive, Duration latency, String heap)
      throws IOException {
    return start(bucket, archive, latency, heap, null);
  }

  /** As {@link #start(String, SyntheticArchive, Duration, String)}, the bucket under {@code versioning} (null: none). */
  public static SyntheticS3Process start(String bucket, SyntheticArchive archive, Duration latency, String heap,
      SyntheticS3Server.Versioning versioning) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx" + heap, "-XX:+UseParallelGC",
        "-cp", System.getProperty("java.class.path"), SyntheticS3Process.class.getName(),
        bucket, archive.prefix(), Long.toString(archive.records()), Integer.toString(archive.keysPerRecord() - 1),
        Long.toString(archive.recordsPerProject()), Boolean.toString(archive.skewed()),
        Integer.toString(archive.dueEvery()),
        Long.toString(latency.toMillis()), Integer.toString(archive.lostFilesPerLiveRecord()),
        Integer.toString(archive.bigRecords().length), Integer.toString(archive.filesPerBigRecord()),
        versioning == null ? "off" : versioning.name()));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new SyntheticS3Process(process);
  }

  public String endpoint() {
    return endpoint;
  }

  public long pid() {
    return process.pid();
  }

  /** The server's request counts by operation (see {@link SyntheticS3Server#requestCounts()}). */
  public synchronized Map<String, Long> requestCounts() throws IOException {
    String line = command("counts");
    Map<String, Long> counts = new TreeMap<>();
    for (String pair : line.substring("counts".length()).trim().split(" ")) {
      if (!pair.isEmpty()) {
        int equals = pair.indexOf('=');
        counts.put(pair.substring(0, equals), Long.parseLong(pair.substring(equals + 1)));
      }
    }
    return counts;
  }

  public synchronized void resetCounts() throws IOException {
    command("reset");
  }

  /** The server's heap in use after a full collection, in bytes. */
  public synchronized long liveHeapBytes() throws IOException {
    return Long.parseLong(command("heap").substring("heap ".length()));
  }

  /** The archive's keys the server deleted (see {@link SyntheticS3Server#deletedKeys()}). */
  public synchronized KeyDigest deletedKeys() throws IOException {
    return KeyDigest.parse(command("deleted").substring("deleted".length()));
  }

  /**
   * Writes the state files of records {@code offset}, {@code offset + every}, ... again as the exporter would (their
   * generated content, a new ETag, LastModified now; a deleted one comes back); returns how many.
   */
  public synchronized long touchStateFiles(long every, long offset) throws IOException {
    return Long.parseLong(command("touch " + every + " " + offset).substring("touched ".length()));
  }

  private String command(String command) throws IOException {
    in.write(command + "\n");
    in.flush();
    String line = out.readLine();
    if (line == null) {
      throw new IOException("the synthetic S3 process exited");
    }
    return line;
  }

  @Override
  public void close() throws IOException {
    try {
      in.close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroy();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  /**
   * The child: {@code bucket prefix records filesPerRecord recordsPerProject skewed dueEvery latencyMillis
   * [lostFilesPerLiveRecord [bigRecords filesPerBigRecord versioning]]} (versioning: off, ENABLED or SUSPENDED).
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 8 && args.length != 9 && args.length != 12) {
      System.err.println("usage: SyntheticS3Process bucket prefix records filesPerRecord recordsPerProject skewed"
          + " dueEvery latencyMillis [lostFilesPerLiveRecord [bigRecords filesPerBigRecord off|ENABLED|SUSPENDED]]");
      System.exit(2);
    }
    SyntheticArchive archive = new SyntheticArchive(args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]),
        Long.parseLong(args[4]), Boolean.parseBoolean(args[5]), Integer.parseInt(args[6]))
        .withLostFiles(args.length >= 9 ? Integer.parseInt(args[8]) : 0);
    if (args.length == 12) {
      archive = archive.withBigRecords(Integer.parseInt(args[9]), Integer.parseInt(args[10]));
    }
    PrintStream stdout = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, UTF_8);
    try (SyntheticS3Server server = new SyntheticS3Server(args[0], archive, Duration.ofMillis(Long.parseLong(args[7])),
        0)) {
      if (args.length == 12 && !args[11].equals("off")) {
        server.versioning(SyntheticS3Server.Versioning.valueOf(args[11]));
      }
      stdout.println("endpoint " + server.endpoint());
      BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, UTF_8));
      for (String line = commands.readLine(); line != null; line = commands.readLine()) {
        switch (line.trim()) {
          case "counts" -> {
            StringBuilder answer = new StringBuilder("counts");
            new TreeMap<>(server.requestCounts()).forEach((operation, count) ->
                answer.append(' ').append(operation).append('=').append(count));
            stdout.println(answer);
          }
          case "reset" -> {
            server.resetCounts();
            stdout.println("reset");
          }
          case "deleted" -> stdout.println("deleted " + server.deletedKeys());
          case "heap" -> {
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            stdout.println("heap " + (runtime.totalMemory() - runtime.freeMemory()));
          }
          default -> {
            String[] words = line.trim().split(" ");
            if (words.length == 3 && words[0].equals("touch")) {
              stdout.println("touched " + touch(server, archive, Long.parseLong(words[1]), Long.parseLong(words[2])));
            } else {
              stdout.println("unknown " + line);
            }
          }
        }
      }
      List<String> unsupported = server.unsupportedRequests();
      if (!unsupported.isEmpty()) {
        System.err.println("synthetic S3: requests answered 501: " + unsupported);
      }
    }
  }

  /** Writes the state files of records offset, offset + every, ... again ({@link #touchStateFiles}). */
  private static long touch(SyntheticS3Server server, SyntheticArchive archive, long every, long offset) {
    long touched = 0;
    for (long record = offset; record < archive.records(); record += every) {
      int stateFile = archive.stateFile(record);
      server.put(archive.key(record, stateFile), archive.content(record, stateFile));
      touched++;
    }
    return touched;
  }
}
