package io.statesweep.spark.run;

import static java.util.Objects.requireNonNull;

import io.statesweep.store.FileSource;
import io.statesweep.s3.S3Settings;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.apache.spark.sql.SparkSession;
import scala.Option;

/**
 * Reads the files that settings name (the config file, a layout file, an inventory manifest) through
 * Hadoop's FileSystem, so that they may live wherever the platform reaches: {@code s3://},
 * {@code s3a://}, {@code dbfs:/}, {@code file:} or a plain local path (which is always local, never the
 * cluster's default filesystem).
 *
 * <p>{@code s3://} is the platform's own S3 filesystem where there is one (EMRFS on EMR, Databricks');
 * elsewhere Hadoop has none, and it is S3A ({@link #S3A_FILE_SYSTEM}).
 *
 * <p>Each read uses its own FileSystem instance, closed after it: Hadoop caches filesystems by scheme and
 * bucket, not by configuration, so a shared one could carry other settings than these.
 */
public final class HadoopFiles implements FileSource {
  /** The FileSystem {@code s3://} maps to where the platform has none. */
  public static final String S3A_FILE_SYSTEM = "org.apache.hadoop.fs.s3a.S3AFileSystem";
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");

  private final Configuration configuration;

  /** Reads with {@code configuration} (copied), {@code s3://} mapped to S3A where it has no FileSystem. */
  public HadoopFiles(Configuration configuration) {
    requireNonNull(configuration, "configuration is null");
    this.configuration = withS3(new Configuration(configuration));
  }

  /**
   * Files read before a run's session is made (the config file, the layout): the Hadoop configuration of
   * the session when one exists (a notebook, Databricks), else the one Spark would make from its conf's
   * {@code spark.hadoop.*} keys; for an S3-compatible {@code endpoint} (from flags or the environment:
   * the config file cannot say where to read itself), S3A goes there as {@link #s3aEndpoint} says,
   * unless the Spark conf sets {@code spark.hadoop.fs.s3a.endpoint}.
   */
  public static HadoopFiles beforeTheRun(S3Settings s3) {
    requireNonNull(s3, "s3 is null");
    Option<SparkSession> session = SparkSession.getActiveSession();
    if (session.isEmpty()) {
      session = SparkSession.getDefaultSession();
    }
    SparkConf sparkConf;
    Configuration configuration;
    if (session.isDefined()) {
      sparkConf = session.get().sparkContext().getConf();
      configuration = new Configuration(session.get().sparkContext().hadoopConfiguration());
    } else {
      sparkConf = new SparkConf();
      configuration = SparkHadoopUtil.get().newConfiguration(sparkConf);
    }
    if (!sparkConf.contains("spark.hadoop.fs.s3a.endpoint")) {
      s3aEndpoint(s3).forEach(configuration::set);
    }
    return new HadoopFiles(configuration);
  }

  /** The configuration reads use. */
  Configuration configuration() {
    return configuration;
  }

  /** Files read in a run: with the session's Hadoop configuration. */
  public static HadoopFiles of(SparkSession spark) {
    return new HadoopFiles(spark.sparkContext().hadoopConfiguration());
  }

  /**
   * The S3A settings that point it at the bucket's S3-compatible endpoint (path style, TLS as the
   * endpoint's scheme says, region); none for AWS.
   */
  public static Map<String, String> s3aEndpoint(S3Settings s3) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (s3.endpoint() != null) {
      settings.put("fs.s3a.endpoint", s3.endpoint());
      settings.put("fs.s3a.path.style.access", Boolean.toString(s3.pathStyle()));
      settings.put("fs.s3a.connection.ssl.enabled", Boolean.toString("https".equals(URI.create(s3.endpoint()).getScheme())));
      if (s3.region() != null) {
        settings.put("fs.s3a.endpoint.region", s3.region());
      }
    }
    return settings;
  }

  /**
   * Whether {@code configuration} has a FileSystem for {@code scheme}: configured ({@code fs.<scheme>.impl}, even
   * with a class this JVM cannot load: the platform's choice stands), or found as a service.
   */
  public static boolean hasFileSystem(String scheme, Configuration configuration) {
    if (configuration.get("fs." + scheme + ".impl") != null) {
      return true;
    }
    try {
      FileSystem.getFileSystemClass(scheme, configuration);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** The scheme that reaches S3 with {@code configuration}: {@code s3} where it has a FileSystem, else {@code s3a}. */
  public static String s3Scheme(Configuration configuration) {
    return hasFileSystem("s3", configuration) ? "s3" : "s3a";
  }

  /** {@code configuration}, with {@code s3://} as S3A when it has no FileSystem for it. */
  private static Configuration withS3(Configuration configuration) {
    if (!hasFileSystem("s3", configuration)) {
      configuration.set("fs.s3.impl", S3A_FILE_SYSTEM);
      configuration.set("fs.AbstractFileSystem.s3.impl", "org.apache.hadoop.fs.s3a.S3A");
    }
    return configuration;
  }

  /** The file's location as a Hadoop path: a location without a scheme is a local file. */
  static Path path(String location) {
    if (SCHEME.matcher(location).matches()) {
      return new Path(location);
    }
    return new Path(new File(location).getAbsoluteFile().toURI());
  }

  @Override
  public byte[] read(String location, int maxBytes) throws IOException {
    requireNonNull(location, "location is null");
    Path path = path(location);
    try (FileSystem fileSystem = FileSystem.newInstance(path.toUri(), configuration);
        InputStream in = fileSystem.open(path)) {
      return FileSource.readAtMost(in, maxBytes);
    }
  }
}
