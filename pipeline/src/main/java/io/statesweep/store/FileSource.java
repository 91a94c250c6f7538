package io.statesweep.store;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads the files that settings name: the {@code --config-file}, a {@code --layout} file, an inventory
 * manifest. The core reads local paths ({@link #LOCAL}); a run on Spark reads them through Hadoop's
 * FileSystem ({@code io.statesweep.spark.HadoopFiles}), so that they may live in S3, DBFS or a volume.
 */
@FunctionalInterface
public interface FileSource {

  /** Local paths only, as {@link java.nio.file.Path} reads them. */
  FileSource LOCAL = (location, maxBytes) -> {
    try (InputStream in = Files.newInputStream(Path.of(location))) {
      return readAtMost(in, maxBytes);
    }
  };

  /**
   * The whole file at {@code location}.
   *
   * @throws FileNotFoundException or {@link NoSuchFileException} when there is no such file (see {@link #isMissing})
   * @throws IOException when it cannot be read, or is larger than {@code maxBytes}
   */
  byte[] read(String location, int maxBytes) throws IOException;

  /** The bytes of {@code in}, refused when there are more than {@code maxBytes}. */
  static byte[] readAtMost(InputStream in, int maxBytes) throws IOException {
    byte[] bytes = in.readNBytes(maxBytes + 1);
    if (bytes.length > maxBytes) {
      throw new IOException("larger than " + maxBytes + " bytes");
    }
    return bytes;
  }

  /** Whether a read failed because there is no such file. */
  static boolean isMissing(IOException e) {
    return e instanceof FileNotFoundException || e instanceof NoSuchFileException;
  }

  /** Why a read failed, for a message that already names the file: "no such file", or the cause. */
  static String reason(IOException e) {
    if (isMissing(e)) {
      return "no such file";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
