package io.statesweep.synthetic;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
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
 * {@link #withBigRecords} makes a few due records huge: each holds and lists {@code files} files
 * ({@code {folder}big/f{file:07d}.bin}) instead of {@code filesPerRecord}; their state files (tens of bytes a
 * file) are generated as they are read ({@link #stream}), never held whole.
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
  /** The big records' indexes, ascending (due records only); empty when there are none. */
  private final long[] bigRecords;
  private final int filesPerBigRecord;

  /** The most files of a big record: its file names have seven digits. */
  public static final int MOST_FILES_PER_BIG_RECORD = 9_999_999;
  private static final String BIG_FOLDER = "big/f";
  /** A big record's state file: its JSON around the list of its files. */
  private static final byte[] BIG_HEAD = "{\"status\": \"deleted\", \"delete\": true, \"expires_at\": null, \"files\": ["
      .getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BIG_TAIL = "], \"delete_files\": []}".getBytes(StandardCharsets.US_ASCII);

  public SyntheticArchive(String prefix, long records, int filesPerRecord, long recordsPerProject, boolean skewed,
      int dueEvery) {
    this(prefix, records, filesPerRecord, recordsPerProject, skewed, dueEvery, 0, 0, 0);
  }

  private SyntheticArchive(String prefix, long records, int filesPerRecord, long recordsPerProject, boolean skewed,
      int dueEvery, int lostFilesPerLiveRecord, int bigRecordCount, int filesPerBigRecord) {
    this.prefix = requireNonNull(prefix, "prefix is null");
    if (records < 0 || filesPerRecord < 0 || filesPerRecord > 99 || recordsPerProject < 1 || dueEvery < 1
        || lostFilesPerLiveRecord < 0 || lostFilesPerLiveRecord > 999_999 || bigRecordCount < 0
        || filesPerBigRecord < 0 || filesPerBigRecord > MOST_FILES_PER_BIG_RECORD) {
      throw new IllegalArgumentException("bad archive shape");
    }
    this.records = records;
    this.filesPerRecord = filesPerRecord;
    this.recordsPerProject = recordsPerProject;
    this.skewed = skewed;
    this.dueEvery = dueEvery;
    this.lostFilesPerLiveRecord = lostFilesPerLiveRecord;
    this.filesPerBigRecord = filesPerBigRecord;
    this.bigRecords = new long[bigRecordCount];
    // Spread over the archive, each on a due record: record (j + 1) * records / (count + 1), rounded down to one.
    for (int j = 0; j < bigRecordCount; j++) {
      long record = (j + 1) * (records / (bigRecordCount + 1)) / dueEvery * dueEvery;
      if (j > 0 && record <= bigRecords[j - 1]) {
        throw new IllegalArgumentException("bad archive shape: " + bigRecordCount + " big records do not fit in "
            + records + " records, one due in " + dueEvery);
      }
      bigRecords[j] = record;
    }
  }

  /** An archive without a single record: a bucket that holds only what is written to it. */
  public static SyntheticArchive empty(String prefix) {
    return new SyntheticArchive(prefix, 0, 0, 1, false, 1);
  }

  /**
   * This archive with every live record's state file also listing {@code lost} files that are not in the
   * bucket: a plan prints one {@code missing} line for each.
   */
  public SyntheticArchive withLostFiles(int lost) {
    return new SyntheticArchive(prefix, records, filesPerRecord, recordsPerProject, skewed, dueEvery, lost,
        bigRecords.length, filesPerBigRecord);
  }

  /**
   * This archive with {@code count} of its due records big: each holds {@code files} files
   * ({@code {folder}big/f{file:07d}.bin}, at most {@value #MOST_FILES_PER_BIG_RECORD}) and its state file lists them
   * all. They are spread over the archive: record {@code (j + 1) * records / (count + 1)}, rounded down to a due one.
   */
  public SyntheticArchive withBigRecords(int count, int files) {
    return new SyntheticArchive(prefix, records, filesPerRecord, recordsPerProject, skewed, dueEvery,
        lostFilesPerLiveRecord, count, files);
  }

  /** The big records' indexes, ascending. */
  public long[] bigRecords() {
    return bigRecords.clone();
  }

  public int filesPerBigRecord() {
    return filesPerBigRecord;
  }

  public boolean isBig(long record) {
    return bigRecords.length > 0 && Arrays.binarySearch(bigRecords, record) >= 0;
  }

  /** How many files a record holds besides its state file, which is its file of this index. */
  public int stateFile(long record) {
    return isBig(record) ? filesPerBigRecord : filesPerRecord;
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
    return records * (filesPerRecord + 1) + (long) bigRecords.length * (filesPerBigRecord - filesPerRecord);
  }

  /** Keys of an ordinary (not big) record: its files and its state file. */
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

  /** File {@code file} of a record; {@code file == stateFile(record)} is its state file. */
  public String key(long record, int file) {
    String folder = folder(record);
    if (file == stateFile(record)) {
      return folder + "state.json";
    }
    if (isBig(record)) {
      return pad(new StringBuilder(folder.length() + 16).append(folder).append(BIG_FOLDER), file, 7).append(".bin")
          .toString();
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
    if (file < stateFile(record)) {
      return ("file " + file + " of record " + record + "\n").length();
    }
    if (isBig(record)) {
      return bigStateFileSize(record);
    }
    return content(record, file).length;
  }

  /** A big record's state file: its head, its first file's entry {@code "K"}, each next one's {@code , "K"}, its tail. */
  private long bigStateFileSize(long record) {
    long keyLength = folder(record).length() + BIG_FOLDER.length() + 11;
    long entries = filesPerBigRecord == 0 ? 0 : keyLength + 2 + (filesPerBigRecord - 1L) * (keyLength + 4);
    return BIG_HEAD.length + entries + BIG_TAIL.length;
  }

  /** Whether the object's content is generated as it is read ({@link #stream}) rather than held: a big state file. */
  public boolean isStreamed(long record, int file) {
    return isBig(record) && file == filesPerBigRecord;
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
      return new Position(record, stateFile(record));
    }
    if (isBig(record)) {
      if (name.length() != 16 || !name.startsWith(BIG_FOLDER) || !name.endsWith(".bin")) {
        return null;
      }
      for (int i = 5; i < 12; i++) {
        if (name.charAt(i) < '0' || name.charAt(i) > '9') {
          return null;
        }
      }
      int file = Integer.parseInt(name.substring(5, 12));
      return file < filesPerBigRecord ? new Position(record, file) : null;
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

  /** A generated object's bytes; a big state file's are generated whole here (use {@link #stream} to serve one). */
  public byte[] content(long record, int file) {
    if (isStreamed(record, file)) {
      try (InputStream in = stream(record, file)) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
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

  /**
   * A generated object's bytes as a stream that generates them as they are read: a big state file lists millions of
   * keys, and neither the archive nor the server holds it. {@link InputStream#skip} jumps (a range read starts at
   * once).
   */
  public InputStream stream(long record, int file) {
    if (!isStreamed(record, file)) {
      return new java.io.ByteArrayInputStream(content(record, file));
    }
    return new BigStateFile(folder(record), filesPerBigRecord, bigStateFileSize(record));
  }

  /** The bytes of a big record's state file, generated an entry at a time (every entry has the same length). */
  private static final class BigStateFile extends InputStream {
    private final byte[] entry;
    private final int files;
    private final long size;
    private final int digits;
    private long at;
    /** The file whose name {@code entry} holds now. */
    private int cachedFile = -1;

    BigStateFile(String folder, int files, long size) {
      // ", \"{folder}big/fNNNNNNN.bin\"": the first entry is the same without its leading ", ".
      this.entry = (", \"" + folder + BIG_FOLDER + "0000000.bin\"").getBytes(StandardCharsets.US_ASCII);
      this.digits = entry.length - 1 - ".bin".length() - 7;
      this.files = files;
      this.size = size;
    }

    @Override
    public int read() {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) {
      if (at >= size) {
        return -1;
      }
      int done = 0;
      while (done < length && at < size) {
        buffer[offset + done++] = byteAt(at++);
      }
      return done;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, size - at));
      at += skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, size - at);
    }

    private byte byteAt(long position) {
      if (position < BIG_HEAD.length) {
        return BIG_HEAD[(int) position];
      }
      long inFiles = position - BIG_HEAD.length + 2; // as if the first entry had its ", " too
      long file = inFiles / entry.length;
      if (file >= files) {
        return BIG_TAIL[(int) (position - (size - BIG_TAIL.length))];
      }
      if ((int) file != cachedFile) {
        cachedFile = (int) file;
        long value = file;
        for (int i = digits + 6; i >= digits; i--) {
          entry[i] = (byte) ('0' + value % 10);
          value /= 10;
        }
      }
      return entry[(int) (inFiles % entry.length)];
    }
  }

  public Instant lastModified(long record, int file) {
    Instant state = BASE.plusSeconds(record);
    return file == stateFile(record) ? state : state.minusSeconds(3600);
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
    if (records == 0) {
      return null;
    }
    long low = 0;
    long high = records;
    while (low < high) {
      long middle = (low + high) >>> 1;
      // The last key of the record (its state file) below the target: everything of it is below.
      if (key(middle, stateFile(middle)).compareTo(key) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    if (low >= records) {
      return null;
    }
    // A record's keys sort in file order too (its state file last): the first file whose key is >= the target.
    int first = 0;
    int last = stateFile(low);
    while (first < last) {
      int middle = (first + last) >>> 1;
      if (key(low, middle).compareTo(key) < 0) {
        first = middle + 1;
      } else {
        last = middle;
      }
    }
    return new Position(low, first);
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
        if (current.file() < stateFile(current.record())) {
          next = new Position(current.record(), current.file() + 1);
        } else {
          next = current.record() + 1 < records ? new Position(current.record() + 1, 0) : null;
        }
        return current;
      }
    };
  }
}
