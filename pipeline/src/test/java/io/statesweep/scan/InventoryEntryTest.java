package io.statesweep.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.scan.InventoryManifest.Format;
import io.statesweep.store.StoredObject;
import java.sql.Timestamp;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One line of an inventory report becomes the object a listing would have shown, or is refused with the data file,
 * the key and the field: a listing with holes would plan against a bucket that is not there.
 */
class InventoryEntryTest {

  private static final String CSV_FILE =
      "s3a://statesweep-inventory/statesweep-archive/daily/data/0b7e4c1a-first.csv.gz";
  private static final String ORC_FILE = "s3a://statesweep-inventory/statesweep-archive/daily-orc/data/a41c.orc";
  private static final String ETAG = "9b2cf535f27731c974343645a3985328";
  private static final Instant MODIFIED = Instant.parse("2026-11-27T10:15:30Z");

  /** A line of an unversioned CSV report: every value is text, as Spark's CSV reader gives it. */
  private static InventoryEntry csvLine(String key, String size, String lastModified, String etag) {
    return new InventoryEntry(CSV_FILE, Format.CSV, key, size, lastModified, etag, null, null);
  }

  /** A line of an unversioned ORC or Parquet report: typed values. */
  private static InventoryEntry orcLine(String key, Object size, Object lastModified, Object etag) {
    return new InventoryEntry(ORC_FILE, Format.ORC, key, size, lastModified, etag, null, null);
  }

  private static InventoryEntry versionedCsvLine(Object isLatest, Object isDeleteMarker) {
    return new InventoryEntry(CSV_FILE, Format.CSV, "cogram/projects/p1/state.json", "120",
        "2026-11-27T10:15:30.000Z", ETAG, isLatest, isDeleteMarker);
  }

  @Nested
  class BecomesTheObjectAListingWouldShow {

    @Test
    void fromACsvLineOfText() {
      StoredObject object = csvLine("cogram/projects/p1/state.json", "1024", "2026-11-27T10:15:30.000Z", ETAG)
          .object();

      assertThat(object).isEqualTo(new StoredObject("cogram/projects/p1/state.json", ETAG, MODIFIED, 1024));
    }

    @Test
    void withTheCsvKeyDecoded() {
      InventoryEntry line = csvLine("cogram/projects/my+notes%2Bc%2B%2B/caf%C3%A9/state.json", "7",
          "2026-11-27T10:15:30.000Z", ETAG);

      assertThat(line.decodedKey()).isEqualTo("cogram/projects/my notes+c++/café/state.json");
      assertThat(line.object().key()).isEqualTo("cogram/projects/my notes+c++/café/state.json");
    }

    @Test
    void fromAnOrcOrParquetLineOfTypedValues() {
      StoredObject object = orcLine("cogram/projects/p1/state.json", 1024L, Timestamp.from(MODIFIED), ETAG).object();

      assertThat(object).isEqualTo(new StoredObject("cogram/projects/p1/state.json", ETAG, MODIFIED, 1024));
    }

    @Test
    void keepingTheMillisecondsOfATimestamp() {
      Instant modified = Instant.parse("2026-11-27T10:15:30.123Z");

      assertThat(orcLine("k", 1L, Timestamp.from(modified), ETAG).object().lastModified()).isEqualTo(modified);
      assertThat(csvLine("k", "1", "2026-11-27T10:15:30.123Z", ETAG).object().lastModified()).isEqualTo(modified);
    }

    @Test
    void fromAnInstantAsSparkGivesItWithTheJava8TimeApi() {
      assertThat(orcLine("k", 1L, MODIFIED, ETAG).object().lastModified()).isEqualTo(MODIFIED);
    }

    @Test
    void fromATimeWithAnOffset() {
      assertThat(csvLine("k", "1", "2026-11-27T11:15:30+01:00", ETAG).object().lastModified()).isEqualTo(MODIFIED);
    }

    @Test
    void withoutDecodingAnOrcKey() {
      // Only CSV reports URL-encode keys; in ORC and Parquet a '+' or '%20' is part of the key.
      InventoryEntry line = orcLine("cogram/projects/a+b%20c/state.json", 1L, Timestamp.from(MODIFIED), ETAG);

      assertThat(line.decodedKey()).isEqualTo("cogram/projects/a+b%20c/state.json");
    }

    @Test
    void withAQuotedETagUnquoted() {
      assertThat(csvLine("k", "1", "2026-11-27T10:15:30Z", "\"" + ETAG + "\"").object().etag()).isEqualTo(ETAG);
      assertThat(csvLine("k", "1", "2026-11-27T10:15:30Z", " " + ETAG + " ").object().etag()).isEqualTo(ETAG);
    }

    @Test
    void withAnEmptyObjectsSizeOfZero() {
      assertThat(csvLine("k", "0", "2026-11-27T10:15:30Z", ETAG).object().size()).isZero();
      assertThat(orcLine("k", 0L, Timestamp.from(MODIFIED), ETAG).object().size()).isZero();
    }

    @Test
    void withASizeBeyondTwoGigabytes() {
      assertThat(csvLine("k", "5368709120", "2026-11-27T10:15:30Z", ETAG).object().size()).isEqualTo(5_368_709_120L);
      assertThat(orcLine("k", 5_368_709_120L, Timestamp.from(MODIFIED), ETAG).object().size())
          .isEqualTo(5_368_709_120L);
    }
  }

  /** Each refusal names the data file, the key (decoded, as S3 knows it) and the field. */
  @Nested
  class Refuses {

    @Test
    void aNegativeSize() {
      assertThatThrownBy(() -> csvLine("cogram/p+1/state.json", "-1", "2026-11-27T10:15:30Z", ETAG).object())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p 1/state.json': size -1 is negative");
      assertThatThrownBy(() -> orcLine("cogram/p1/state.json", -5L, Timestamp.from(MODIFIED), ETAG).object())
          .hasMessage("Inventory file " + ORC_FILE + ": key 'cogram/p1/state.json': size -5 is negative");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void aBlankSize(String size) {
      assertThatThrownBy(() -> csvLine("cogram/p1/state.json", size, "2026-11-27T10:15:30Z", ETAG).object())
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p1/state.json': size is missing");
    }

    @Test
    void aMissingSize() {
      assertThatThrownBy(() -> orcLine("cogram/p1/state.json", null, Timestamp.from(MODIFIED), ETAG).object())
          .hasMessage("Inventory file " + ORC_FILE + ": key 'cogram/p1/state.json': size is missing");
    }

    @ParameterizedTest
    @ValueSource(strings = {"12kB", "1.5", "0x10"})
    void aSizeThatIsNotAWholeNumber(String size) {
      assertThatThrownBy(() -> csvLine("cogram/p1/state.json", size, "2026-11-27T10:15:30Z", ETAG).object())
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p1/state.json': size '" + size
              + "' is not a whole number");
    }

    @ParameterizedTest
    @ValueSource(strings = {"yesterday", "2026-11-27T10:15:30", "2026-11-27", "1795827600000"})
    void aLastModifiedThatIsNotATimeWithAZone(String time) {
      assertThatThrownBy(() -> csvLine("cogram/p1/state.json", "1", time, ETAG).object())
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p1/state.json': last_modified_date '" + time
              + "' is not an ISO-8601 time with a zone");
    }

    @Test
    void aMissingLastModified() {
      assertThatThrownBy(() -> csvLine("cogram/p1/state.json", "1", "", ETAG).object())
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p1/state.json': last_modified_date is missing");
      assertThatThrownBy(() -> orcLine("cogram/p1/state.json", 1L, null, ETAG).object())
          .hasMessage("Inventory file " + ORC_FILE + ": key 'cogram/p1/state.json': last_modified_date is missing");
    }

    @Test
    void aMissingETag() {
      assertThatThrownBy(() -> csvLine("cogram/p1/state.json", "1", "2026-11-27T10:15:30Z", "").object())
          .hasMessage("Inventory file " + CSV_FILE + ": key 'cogram/p1/state.json': e_tag is missing");
      assertThatThrownBy(() -> orcLine("cogram/p1/state.json", 1L, Timestamp.from(MODIFIED), null).object())
          .hasMessage("Inventory file " + ORC_FILE + ": key 'cogram/p1/state.json': e_tag is missing");
    }

    @Test
    void aLineWithoutAKey() {
      assertThatThrownBy(() -> csvLine(null, "1", "2026-11-27T10:15:30Z", ETAG).object())
          .hasMessage("Inventory file " + CSV_FILE + ": a line has no key");
      assertThatThrownBy(() -> orcLine("", 1L, Timestamp.from(MODIFIED), ETAG).decodedKey())
          .hasMessage("Inventory file " + ORC_FILE + ": a line has no key");
    }

    @Test
    void aCsvKeyThatIsNotUrlEncoded() {
      assertThatThrownBy(() -> csvLine("cogram/p%zz/state.json", "1", "2026-11-27T10:15:30Z", ETAG).object())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Inventory file " + CSV_FILE + ": key 'cogram/p%zz/state.json' ")
          .hasMessageContaining("is not URL-encoded");
    }
  }

  /** Which lines are keys a listing would show. */
  @Nested
  class IsLive {

    @Test
    void everyLineOfAnUnversionedReport() {
      assertThat(versionedCsvLine(null, null).isLive()).isTrue();
    }

    @Test
    void theLatestVersionThatIsNotADeleteMarker() {
      assertThat(versionedCsvLine(true, false).isLive()).isTrue();
      assertThat(versionedCsvLine("true", "false").isLive()).isTrue();
    }

    @Test
    void notAnOlderVersion() {
      assertThat(versionedCsvLine(false, false).isLive()).isFalse();
      assertThat(versionedCsvLine("false", "false").isLive()).isFalse();
    }

    @Test
    void notADeleteMarkerEvenWhenItIsTheLatestVersion() {
      assertThat(versionedCsvLine(true, true).isLive()).isFalse();
      assertThat(versionedCsvLine("true", "true").isLive()).isFalse();
      assertThat(versionedCsvLine(null, "true").isLive()).isFalse();
    }

    @Test
    void readsTrueAndFalseTextInAnyCase() {
      assertThat(versionedCsvLine("TRUE", "False").isLive()).isTrue();
      assertThat(versionedCsvLine(" true ", " TRUE ").isLive()).isFalse();
    }

    @Test
    void withoutReadingTheFieldsADeleteMarkerLeavesEmpty() {
      // A delete marker has no size, ETag or storage class in the report; it is dropped, not refused.
      InventoryEntry marker = new InventoryEntry(CSV_FILE, Format.CSV, "cogram/projects/p1/state.json", "",
          "2026-11-27T10:15:30.000Z", "", "true", "true");

      assertThat(marker.isLive()).isFalse();
    }
  }

  @Test
  void needsItsFileAndFormat() {
    assertThatThrownBy(() -> new InventoryEntry(null, Format.CSV, "k", "1", "t", ETAG, null, null))
        .isInstanceOf(NullPointerException.class).hasMessage("file is null");
    assertThatThrownBy(() -> new InventoryEntry(CSV_FILE, null, "k", "1", "t", ETAG, null, null))
        .isInstanceOf(NullPointerException.class).hasMessage("format is null");
  }
}
