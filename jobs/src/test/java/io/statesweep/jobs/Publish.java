package io.statesweep.jobs;

import static java.util.Objects.requireNonNull;

import io.statesweep.s3.S3ObjectStore;
import io.statesweep.s3.S3Settings;
import io.statesweep.spark.tables.RunsTable;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Publishes the job jar under a path of its version (README, "Quick start on a platform"):
 * {@code mvn -B -Ppublish -DskipTests verify -pl jobs -am -Dpublish.to=s3://my-artifacts-bucket/statesweep}
 * builds {@code jobs/target/statesweep.jar} and uploads it to
 * {@code s3://my-artifacts-bucket/statesweep/<version>/statesweep.jar}, the version being the build's (pom.xml; every
 * row of {@code runs} records it). A version is published once: its path is written with PutObject
 * {@code If-None-Match: *}, and a path that holds a jar already is refused, so the code a job definition names never
 * changes between a plan and its execute. It prints the path to put into the job definitions of conf/deploy.
 *
 * <p>Build tooling, in test scope as the demo is: the job jar does not carry it. Credentials come from the AWS SDK's
 * default chain; {@code --endpoint} (and {@code --region}) point it at an S3-compatible store.
 */
public final class Publish {
  private static final String USAGE = "usage: Publish --to s3://<bucket>/<folder> --jar <statesweep.jar>"
      + " [--version <v>] [--endpoint <url>] [--region <region>]";

  private Publish() {}

  public static void main(String[] args) {
    try {
      System.out.println(run(args, S3Settings.defaults(), System.out));
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("statesweep publish: " + e.getMessage());
      System.exit(2);
    }
  }

  /** Publishes as {@code args} say, with {@code s3} unless they name an endpoint or region; returns the jar's path. */
  static String run(String[] args, S3Settings s3, PrintStream out) {
    String to = null;
    String jar = null;
    String version = RunsTable.VERSION;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--to" -> to = value;
        case "--jar" -> jar = value;
        case "--version" -> version = value;
        case "--endpoint" -> s3 = s3.withEndpoint(value, true);
        case "--region" -> s3 = s3.withRegion(value);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
      }
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(args[i] + " needs a value; " + USAGE);
      }
      i++;
    }
    if (to == null || jar == null) {
      throw new IllegalArgumentException(USAGE);
    }
    return publish(Path.of(jar), to, version, s3, out);
  }

  /**
   * Uploads {@code jar} to {@code <to>/<version>/statesweep.jar} unless that path holds an object already (then
   * {@link IllegalStateException}, naming it); returns the path.
   */
  static String publish(Path jar, String to, String version, S3Settings s3, PrintStream out) {
    requireNonNull(version, "version is null");
    if (version.isBlank() || version.equals("unknown") || version.contains("/")) {
      throw new IllegalArgumentException("cannot publish version '" + version + "': give a version of the build");
    }
    URI uri = URI.create(to.endsWith("/") ? to : to + "/");
    if (!"s3".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException("--to must be s3://<bucket>/<folder>, not " + to);
    }
    String key = uri.getPath().substring(1) + version + "/statesweep.jar";
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(jar);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the jar " + jar + " (build it first: mvn -B -DskipTests"
          + " package): " + e.getMessage(), e);
    }
    String path = "s3://" + uri.getHost() + "/" + key;
    if (S3ObjectStore.open(s3, uri.getHost()).createIfAbsent(key, bytes) == null) {
      throw new IllegalStateException(path + " holds a jar already: a version is published once, so that the code"
          + " a job names never changes between a plan and its execute. Release a new version (pom.xml) and"
          + " publish that");
    }
    out.printf("published %s (%,d bytes, version %s): name it as the jar of every job in conf/deploy%n", path,
        bytes.length, version);
    return path;
  }
}
