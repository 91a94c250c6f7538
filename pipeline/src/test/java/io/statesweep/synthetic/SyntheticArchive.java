package io.statesweep.synthetic;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A generated archive of {@code records} document records that is never held in memory: every key,
 * its version and its content are derived from the record's index. Keys sort in index order:
 *
 * <pre>
 *   {prefix}projects/p{project:06d}/documents/d{record:09d}/f{file:02d}.bin   (filesPerRecord files)
 *   {prefix}projects/p{project:06d}/documents/d{record:09d}/state.json
 * </pre>
 *
 * Records go to projects in index order, {@code recordsPerProject} each; a skewed archive puts the
 * first half of all records in project 0. Every {@code dueEvery}-th record says {@code delete: true}.
 * {@link #withLostFiles} makes every live record list files the bucket lacks as well
 * ({@code {folder}lost{file:06d}.bin}, never listed: as if a lifecycle rule had deleted them).
 */
public final class SyntheticArchive {
  /** Files are written an hour before their state file; record i's state file at BASE + i seconds. */
  static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");

  private final String prefix;
  private final long records;
  private final int filesPerRecord;
  private final long recordsPerProject;
  private final boolean skewed;
  private final int dueEvery;
  private final int lostFilesPerLiveRecord;

  public SyntheticArchive(String prefix, long records, int filesPerRecord, long recordsPerProject, boolean skewed,
      int dueEvery) {
    this(prefix, records, filesPerRecord, recordsPerProject, skewed, dueEvery, 0);
  }

  private SyntheticArchive(String prefix, long records, int filesPerRecord, long recordsPerProject, boolean skewed,
      int dueEvery, int lostFilesPerLiveRecord) {
    this.prefix = requireNonNull(prefix, "prefix is null");
    if (records < 1 || filesPerRecord < 0 || filesPerRecord > 99 || recordsPerProject < 1 || dueEvery < 1
        || lostFilesPerLiveRecord < 0 || lostFilesPerLiveRecord > 999_999) {
      throw new IllegalArgumentException("bad archive shape");
    }
    this.records = records;
    this.filesPerRecord = filesPerRecord;
    this.recordsPerProject = recordsPerProject;
    this.skewed = skewed;
    this.dueEvery = dueEvery;
    this.lostFilesPerLiveRecord = lostFilesPerLiveRecord;
  }

  /**
   * This archive with every live record's state file also listing {@code lost} files that are not in the
   * bucket: a plan prints one {@code missing} line for each.
   */
  public SyntheticArchive withLostFiles(int lost) {
    return new SyntheticArchive(prefix, records, filesPerRecord, recordsPerProject, skewed, dueEvery, lost);
  }

  public int lostFilesPerLiveRecord() {
    return lostFilesPerLiveRecord;
  }

  /** How many files the archive's live records list that the bucket lacks. */
  public long lostFiles() {
    long due = (records + dueEvery - 1) / dueEvery; // records 0, dueEvery, 2 dueEvery, ...
    return (records - due) * lostFilesPerLiveRecord;
  }

  public String prefix() {
    return prefix;
  }

  public long records() {
    return records;
  }

  public long keys() {
    return records * (filesPerRecord + 1);
  }

  public int keysPerRecord() {
    return filesPerRecord + 1;
  }

  public long recordsPerProject() {
    return recordsPerProject;
  }

  public boolean skewed() {
    return skewed;
  }

  public int dueEvery() {
    return dueEvery;
  }

  long project(long record) {
    if (!skewed) {
      return record / recordsPerProject;
    }
    long half = records / 2;
    return record < half ? 0 : 1 + (record - half) / recordsPerProject;
  }

  public String folder(long record) {
    StringBuilder folder = new StringBuilder(prefix.length() + 40).append(prefix).append("projects/p");
    pad(folder, project(record), 6).append("/documents/d");
    return pad(folder, record, 9).append('/').toString();
  }

  /** File {@code file} of a record; {@code file == filesPerRecord} is its state file. */
  public String key(long record, int file) {
    String folder = folder(record);
    if (file == filesPerRecord) {
      return folder + "state.json";
    }
    return folder + 'f' + (char) ('0' + file / 10) + (char) ('0' + file % 10) + ".bin";
  }

  /** Zero-padded digits without String.format: listing a million keys formats a million of them. */
  private static StringBuilder pad(StringBuilder out, long value, int width) {
    String digits = Long.toString(value);
    for (int i = digits.length(); i < width; i++) {
      out.append('0');
    }
    return out.append(digits);
  }

  /** The size of a generated object, without generating it for a file. */
  public long size(long record, int file) {
    if (file < filesPerRecord) {
      return ("file " + file + " of record " + record + "\n").length();
    }
    return content(record, file).length;
  }

  public boolean isDue(long record) {
    return record % dueEvery == 0;
  }

  /** A generated object: its position, or null for a key outside the archive. */
  public Position position(String key) {
    if (!key.startsWith(prefix + "projects/p")) {
      return null;
    }
    String rest = key.substring(prefix.length());
    // projects/pNNNNNN/documents/dNNNNNNNNN/name
    if (rest.length() < 40 || rest.charAt(16) != '/' || !rest.startsWith("/documents/d", 16)) {
      return null;
    }
    long record;
    try {
      record = Long.parseLong(rest.substring(28, 37));
    } catch (NumberFormatException e) {
      return null;
    }
    if (record < 0 || record >= records || !key.startsWith(folder(record))) {
      return null;
    }
    String name = key.substring(folder(record).length());
    if (name.equals("state.json")) {
      return new Position(record, filesPerRecord);
    }
    if (name.length() == 7 && name.startsWith("f") && name.endsWith(".bin")) {
      try {
        int file = Integer.parseInt(name.substring(1, 3));
        return file < filesPerRecord ? new Position(record, file) : null;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** A generated object's place: record index and file index (the state file is the last file). */
  public record Position(long record, int file) {}

  public byte[] content(long record, int file) {
    if (file < filesPerRecord) {
      return ("file " + file + " of record " + record + "\n").getBytes(StandardCharsets.UTF_8);
    }
    StringBuilder json = new StringBuilder("{\"status\": \"").append(isDue(record) ? "deleted" : "active")
        .append("\", \"delete\": ").append(isDue(record)).append(", \"expires_at\": null, \"files\": [");
    for (int i = 0; i < filesPerRecord; i++) {
      json.append(i == 0 ? "\"" : ", \"").append(key(record, i)).append('"');
    }
    if (!isDue(record)) {
      String folder = folder(record);
      for (int i = 0; i < lostFilesPerLiveRecord; i++) {
        json.append(i == 0 && filesPerRecord == 0 ? "\"" : ", \"").append(folder).append("lost");
        pad(json, i, 6).append(".bin\"");
      }
    }
    return json.append("], \"delete_files\": []}").toString().getBytes(StandardCharsets.UTF_8);
  }

  public Instant lastModified(long record, int file) {
    Instant state = BASE.plusSeconds(record);
    return file == filesPerRecord ? state : state.minusSeconds(3600);
  }

  /** A stable ETag per key and version 0 (the generated one). */
  public String etag(long record, int file) {
    long hash = record * 1_000_003L + file * 7_919L + 0x5eed;
    return hex16(Long.rotateLeft(hash * 0x9E3779B97F4A7C15L, 17)) + hex16(hash ^ 0xC2B2AE3D27D4EB4FL);
  }

  private static String hex16(long value) {
    String hex = Long.toHexString(value);
    return "0".repeat(16 - hex.length()) + hex;
  }

  /**
   * The first generated position whose key is {@code >= key} in String order (also the order of
   * UTF-8 bytes here: every key is ASCII), or null past the end.
   */
  public Position ceiling(String key) {
    long low = 0;
    long high = records;
    while (low < high) {
      long middle = (low + high) >>> 1;
      // The last key of the record (its state file) below the target: everything of it is below.
      if (key(middle, filesPerRecord).compareTo(key) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    if (low >= records) {
      return null;
    }
    for (int file = 0; file <= filesPerRecord; file++) {
      if (key(low, file).compareTo(key) >= 0) {
        return new Position(low, file);
      }
    }
    throw new IllegalStateException("no key of record " + low + " is >= " + key);
  }

  /** Generated keys from {@code start} on, in order. */
  public Iterator<Position> from(Position start) {
    return new Iterator<>() {
      private Position next = start;

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public Position next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        Position current = next;
        if (current.file() < filesPerRecord) {
          next = new Position(current.record(), current.file() + 1);
        } else {
          next = current.record() + 1 < records ? new Position(current.record() + 1, 0) : null;
        }
        return current;
      }
    };
  }
}
