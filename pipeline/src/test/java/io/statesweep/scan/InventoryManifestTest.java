package io.statesweep.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The manifest.json of an S3 Inventory report stands in for the listing only when it lists the export's bucket and
 * its data files carry every column a listing gives; everything else is refused with the manifest and the field.
 */
class InventoryManifestTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String LOCATION =
      "s3://statesweep-inventory/statesweep-archive/daily/2026-11-28T01-00Z/manifest.json";
  private static final Instant TAKEN_AT = Instant.parse("2026-11-28T01:00:00Z");

  /** A daily CSV report of every version, as S3 Inventory writes its manifest. */
  private static final String CSV_MANIFEST = """
      {
        "sourceBucket": "statesweep-archive",
        "destinationBucket": "arn:aws:s3:::statesweep-inventory",
        "version": "2016-11-30",
        "creationTimestamp": "1795827600000",
        "fileFormat": "CSV",
        "fileSchema": "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, StorageClass",
        "files": [
          {
            "key": "statesweep-archive/daily/data/0b7e4c1a-first.csv.gz",
            "size": 81234,
            "MD5checksum": "0f343b0931126a20f133d67c2b018a3b"
          },
          {
            "key": "statesweep-archive/daily/data/5d2f9e80-second.csv.gz",
            "size": 40960,
            "MD5checksum": "9e107d9d372bb6826bd81d3542a419d6"
          }
        ]
      }
      """;

  private static final String ORC_MANIFEST = """
      {
        "sourceBucket": "statesweep-archive",
        "destinationBucket": "arn:aws:s3:::statesweep-inventory",
        "version": "2016-11-30",
        "creationTimestamp": "1795827600000",
        "fileFormat": "ORC",
        "fileSchema": "struct<bucket:string,key:string,size:bigint,last_modified_date:timestamp,e_tag:string>",
        "files": [
          {
            "key": "statesweep-archive/daily-orc/data/a41c.orc",
            "size": 5120,
            "MD5checksum": "e4d909c290d0fb1ca068ffaddf22cbd0"
          }
        ]
      }
      """;

  private static final String PARQUET_MANIFEST = """
      {
        "sourceBucket": "statesweep-archive",
        "destinationBucket": "arn:aws:s3:::statesweep-inventory",
        "version": "2016-11-30",
        "creationTimestamp": "1795827600000",
        "fileFormat": "Parquet",
        "fileSchema": "message s3.inventory { required binary bucket (STRING); required binary key (STRING); \
      optional int64 size; optional int64 last_modified_date (TIMESTAMP(MILLIS,true)); \
      optional binary e_tag (STRING); }",
        "files": [
          {
            "key": "statesweep-archive/daily-parquet/data/77b3.parquet",
            "size": 6144,
            "MD5checksum": "d8e8fca2dc0f896fd7cb4cb0031ba249"
          }
        ]
      }
      """;

  private static InventoryManifest parse(String json) {
    return InventoryManifest.parse(json.getBytes(StandardCharsets.UTF_8), LOCATION);
  }

  /** The CSV manifest with one change, for the refusals. */
  private static String csvManifestWhere(Consumer<ObjectNode> change) {
    try {
      ObjectNode manifest = (ObjectNode) JSON.readTree(CSV_MANIFEST);
      change.accept(manifest);
      return JSON.writeValueAsString(manifest);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void readsACsvManifestOfEveryVersionWithItsColumnsUnderTheirOrcNames() {
    InventoryManifest manifest = parse(CSV_MANIFEST);

    assertThat(manifest.location()).isEqualTo(LOCATION);
    assertThat(manifest.sourceBucket()).isEqualTo("statesweep-archive");
    assertThat(manifest.destinationBucket()).isEqualTo("statesweep-inventory");
    assertThat(manifest.format()).isEqualTo(InventoryManifest.Format.CSV);
    assertThat(manifest.columns()).containsExactly("bucket", "key", "version_id", "is_latest", "is_delete_marker",
        "size", "last_modified_date", "e_tag", "storage_class");
    assertThat(manifest.createdAt()).isEqualTo(TAKEN_AT);
    assertThat(manifest.files()).containsExactly(
        "statesweep-archive/daily/data/0b7e4c1a-first.csv.gz",
        "statesweep-archive/daily/data/5d2f9e80-second.csv.gz");
    assertThat(manifest.hasVersions()).isTrue();
  }

  @Test
  void readsAnOrcManifestFromItsStructSchema() {
    InventoryManifest manifest = parse(ORC_MANIFEST);

    assertThat(manifest.format()).isEqualTo(InventoryManifest.Format.ORC);
    assertThat(manifest.columns()).containsExactly("bucket", "key", "size", "last_modified_date", "e_tag");
    assertThat(manifest.destinationBucket()).isEqualTo("statesweep-inventory");
    assertThat(manifest.createdAt()).isEqualTo(TAKEN_AT);
    assertThat(manifest.files()).containsExactly("statesweep-archive/daily-orc/data/a41c.orc");
    assertThat(manifest.hasVersions()).isFalse();
  }

  @Test
  void readsAParquetManifestFromItsMessageSchema() {
    InventoryManifest manifest = parse(PARQUET_MANIFEST);

    assertThat(manifest.format()).isEqualTo(InventoryManifest.Format.PARQUET);
    assertThat(manifest.columns()).containsExactly("bucket", "key", "size", "last_modified_date", "e_tag");
    assertThat(manifest.files()).containsExactly("statesweep-archive/daily-parquet/data/77b3.parquet");
    assertThat(manifest.hasVersions()).isFalse();
  }

  @Test
  void acceptsACreationTimestampWrittenAsAnIsoInstant() {
    InventoryManifest manifest = parse(csvManifestWhere(m -> m.put("creationTimestamp", "2026-11-28T01:00:00Z")));

    assertThat(manifest.createdAt()).isEqualTo(TAKEN_AT);
  }

  @Test
  void acceptsADestinationBucketGivenByNameRatherThanArn() {
    InventoryManifest manifest = parse(csvManifestWhere(m -> m.put("destinationBucket", "statesweep-inventory")));

    assertThat(manifest.destinationBucket()).isEqualTo("statesweep-inventory");
  }

  @Test
  void namesTheDataFilesInTheDestinationBucketUnderTheGivenScheme() {
    InventoryManifest manifest = parse(CSV_MANIFEST);

    assertThat(manifest.fileUris("s3a")).containsExactly(
        "s3a://statesweep-inventory/statesweep-archive/daily/data/0b7e4c1a-first.csv.gz",
        "s3a://statesweep-inventory/statesweep-archive/daily/data/5d2f9e80-second.csv.gz");
    assertThat(manifest.fileUris("s3")).containsExactly(
        "s3://statesweep-inventory/statesweep-archive/daily/data/0b7e4c1a-first.csv.gz",
        "s3://statesweep-inventory/statesweep-archive/daily/data/5d2f9e80-second.csv.gz");
  }

  @Test
  void acceptsAReportOfTheExportsBucketAndRefusesAnyOther() {
    InventoryManifest manifest = parse(CSV_MANIFEST);

    manifest.checkLists("statesweep-archive");
    assertThatThrownBy(() -> manifest.checkLists("another-archive"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Inventory manifest " + LOCATION + " lists bucket 'statesweep-archive', not the export's bucket"
            + " 'another-archive'");
  }

  @Test
  void holdsItsColumnsAndFilesUnmodifiable() {
    InventoryManifest manifest = parse(CSV_MANIFEST);

    assertThatThrownBy(() -> manifest.columns().add("owner")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> manifest.files().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  /**
   * Every refusal names the manifest and the field, so the person who configured the inventory knows what to fix.
   */
  @Nested
  class Refuses {

    @Test
    void aManifestThatIsNotJson() {
      assertThatThrownBy(() -> parse("{\"sourceBucket\": "))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Inventory manifest " + LOCATION + " is not JSON: ");
    }

    @Test
    void aManifestThatIsNotAnObject() {
      assertThatThrownBy(() -> parse("[\"statesweep-archive\"]"))
          .hasMessage("Inventory manifest " + LOCATION + " is not a JSON object");
      assertThatThrownBy(() -> parse("\"manifest\""))
          .hasMessage("Inventory manifest " + LOCATION + " is not a JSON object");
      assertThatThrownBy(() -> parse(""))
          .hasMessage("Inventory manifest " + LOCATION + " is not a JSON object");
    }

    @Test
    void aMissingSourceBucket() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("sourceBucket"))))
          .hasMessage("Inventory manifest " + LOCATION + ": sourceBucket is missing");
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.putNull("sourceBucket"))))
          .hasMessage("Inventory manifest " + LOCATION + ": sourceBucket is missing");
    }

    @Test
    void aSourceBucketThatIsBlankOrNotAString() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("sourceBucket", " "))))
          .hasMessage("Inventory manifest " + LOCATION + ": sourceBucket is not a non-empty string");
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.putObject("sourceBucket").put("name", "archive"))))
          .hasMessage("Inventory manifest " + LOCATION + ": sourceBucket is not a non-empty string");
    }

    @Test
    void aMissingDestinationBucket() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("destinationBucket"))))
          .hasMessage("Inventory manifest " + LOCATION + ": destinationBucket is missing");
    }

    @ParameterizedTest
    @ValueSource(strings = {"arn:aws:s3:::", "arn:aws:s3:::statesweep-inventory/reports", "statesweep-inventory/x"})
    void aDestinationBucketThatIsNotABucket(String destination) {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("destinationBucket", destination))))
          .hasMessage("Inventory manifest " + LOCATION + ": destinationBucket '" + destination
              + "' is not a bucket ARN such as arn:aws:s3:::inventory-bucket");
    }

    @Test
    void anUnknownFileFormat() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("fileFormat", "JSON"))))
          .hasMessage("Inventory manifest " + LOCATION + ": fileFormat 'JSON' is not CSV, ORC or Parquet");
    }

    @Test
    void aMissingFileFormat() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("fileFormat"))))
          .hasMessage("Inventory manifest " + LOCATION + ": fileFormat is missing");
    }

    @Test
    void aFileSchemaWithoutTheSizeAndETagALineNeeds() {
      String schema = "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, LastModifiedDate, StorageClass";

      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("fileSchema", schema))))
          .hasMessage("Inventory manifest " + LOCATION + ": fileSchema has no size, e_tag column; configure the"
              + " inventory with the Size, Last modified and ETag fields, or use --listing list");
    }

    @Test
    void aFileSchemaThatNamesNoColumns() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("fileSchema", " , "))))
          .hasMessage("Inventory manifest " + LOCATION + ": fileSchema ' , ' names no columns");
    }

    @Test
    void aMissingFileSchema() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("fileSchema"))))
          .hasMessage("Inventory manifest " + LOCATION + ": fileSchema is missing");
    }

    @Test
    void missingFiles() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("files"))))
          .hasMessage("Inventory manifest " + LOCATION + ": files is missing or not a list");
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("files", "statesweep-archive/daily/data/x.csv.gz"))))
          .hasMessage("Inventory manifest " + LOCATION + ": files is missing or not a list");
    }

    @Test
    void aFileWithoutAKey() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> ((ObjectNode) m.get("files").get(1)).remove("key"))))
          .hasMessage("Inventory manifest " + LOCATION + ": files[1].key is missing");
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> ((ObjectNode) m.get("files").get(1)).put("key", ""))))
          .hasMessage("Inventory manifest " + LOCATION + ": files[1].key is missing");
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> ((ArrayNode) m.get("files")).set(1, "x.csv.gz"))))
          .hasMessage("Inventory manifest " + LOCATION + ": files[1].key is missing");
    }

    @ParameterizedTest
    @ValueSource(strings = {"yesterday", "2026-11-28", "1795827600000.5"})
    void aCreationTimestampThatIsNotATime(String timestamp) {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.put("creationTimestamp", timestamp))))
          .hasMessage("Inventory manifest " + LOCATION + ": creationTimestamp '" + timestamp
              + "' is neither epoch milliseconds nor an ISO-8601 instant");
    }

    @Test
    void aMissingCreationTimestamp() {
      assertThatThrownBy(() -> parse(csvManifestWhere(m -> m.remove("creationTimestamp"))))
          .hasMessage("Inventory manifest " + LOCATION + ": creationTimestamp is missing");
    }
  }

  /**
   * Inventories delivered in the China and GovCloud partitions name their destination with that partition's ARN.
   * Such a bucket must not become a host name like {@code arn:aws-cn:s3:::...} in the data files' URIs.
   */
  @ParameterizedTest
  @ValueSource(strings = {"arn:aws-cn:s3:::statesweep-inventory", "arn:aws-us-gov:s3:::statesweep-inventory"})
  void readsTheDestinationBucketOfAnyAwsPartition(String arn) {
    InventoryManifest manifest = parse(csvManifestWhere(m -> m.put("destinationBucket", arn)));

    assertThat(manifest.destinationBucket()).isEqualTo("statesweep-inventory");
    assertThat(manifest.fileUris("s3a")).first()
        .isEqualTo("s3a://statesweep-inventory/statesweep-archive/daily/data/0b7e4c1a-first.csv.gz");
  }

  /** S3 Inventory URL-encodes keys in CSV reports only. */
  @Nested
  class DecodeCsvKey {

    @Test
    void turnsAPlusIntoASpace() {
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/p+1/state.json"))
          .isEqualTo("cogram/projects/p 1/state.json");
    }

    @Test
    void turnsPercentTwentyIntoASpace() {
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/p%201/state.json"))
          .isEqualTo("cogram/projects/p 1/state.json");
    }

    @Test
    void turnsPercentTwoBIntoALiteralPlus() {
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/c%2B%2B/state.json"))
          .isEqualTo("cogram/projects/c++/state.json");
    }

    @Test
    void decodesMultiByteUtf8() {
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/caf%C3%A9/state.json"))
          .isEqualTo("cogram/projects/café/state.json");
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/%E4%B8%AD/state.json"))
          .isEqualTo("cogram/projects/中/state.json");
      assertThat(InventoryManifest.decodeCsvKey("cogram/projects/%F0%9F%93%A6/state.json"))
          .isEqualTo("cogram/projects/\uD83D\uDCE6/state.json");
    }

    @Test
    void leavesAPlainKeyAlone() {
      assertThat(InventoryManifest.decodeCsvKey("cogram/workflows/w-000123/state.json"))
          .isEqualTo("cogram/workflows/w-000123/state.json");
    }

    @Test
    void refusesAMalformedEscape() {
      assertThatThrownBy(() -> InventoryManifest.decodeCsvKey("cogram/projects/%zz/state.json"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("is not URL-encoded: '%' at 16 is not followed by two hex digits");
      assertThatThrownBy(() -> InventoryManifest.decodeCsvKey("cogram/projects/100%"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("is not URL-encoded: '%' at 19 is not followed by two hex digits");
    }

    @Test
    void refusesEscapesThatAreNotUtf8() {
      // A cut multi-byte sequence: S3 never writes it, so the report is corrupt; no key is guessed.
      assertThatThrownBy(() -> InventoryManifest.decodeCsvKey("p%C3/state.json"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("does not decode to UTF-8 text");
    }

    @Test
    void keepsCharactersThatWereNotEscaped() {
      assertThat(InventoryManifest.decodeCsvKey("p/é中/%F0%9F%93%A6+x")).isEqualTo("p/é中/📦 x");
    }
  }

  @ParameterizedTest
  @CsvSource({
      "Bucket, bucket",
      "Key, key",
      "VersionId, version_id",
      "IsLatest, is_latest",
      "IsDeleteMarker, is_delete_marker",
      "Size, size",
      "LastModifiedDate, last_modified_date",
      "ETag, e_tag",
      "StorageClass, storage_class",
      "IsMultipartUploaded, is_multipart_uploaded",
      "ObjectLockRetainUntilDate, object_lock_retain_until_date",
      "IntelligentTieringAccessTier, intelligent_tiering_access_tier",
  })
  void namesACsvFieldAsOrcAndParquetDo(String csvField, String column) {
    assertThat(InventoryManifest.columnName(csvField)).isEqualTo(column);
    assertThat(InventoryManifest.columnName(" " + csvField + " ")).isEqualTo(column);
  }

  @Nested
  class ManifestLocation {

    @Test
    void readsAnS3OrS3aUri() {
      assertThat(InventoryManifest.Location.parse(LOCATION)).isEqualTo(new InventoryManifest.Location(LOCATION));
      assertThat(InventoryManifest.Location.parse(LOCATION).scheme()).isEqualTo("s3");
      assertThat(InventoryManifest.Location.parse(LOCATION).dataFileScheme()).isEqualTo("s3");
      InventoryManifest.Location s3a = InventoryManifest.Location.parse("s3a://statesweep-inventory/daily/manifest.json");
      assertThat(s3a.scheme()).isEqualTo("s3a");
      assertThat(s3a.dataFileScheme()).isEqualTo("s3a");
      assertThat(s3a.fileName()).isEqualTo("manifest.json");
    }

    @ParameterizedTest
    @CsvSource({
        "dbfs:/inventory/daily/manifest.json, dbfs",
        "file:/tmp/inventory/daily/manifest.json, file",
        "file:///tmp/inventory/daily/manifest.json, file",
        "/Volumes/main/ops/inventory/manifest.json, file"})
    void readsADbfsOrLocalLocationWhoseDataFilesAreInS3(String uri, String scheme) {
      InventoryManifest.Location location = InventoryManifest.Location.parse(uri);

      assertThat(location.scheme()).isEqualTo(scheme);
      assertThat(location.dataFileScheme()).isEqualTo("s3");
      assertThat(location.fileName()).isEqualTo("manifest.json");
      assertThat(location).hasToString(uri);
    }

    @Test
    void printsAsTheUriItWasReadFrom() {
      assertThat(InventoryManifest.Location.parse(" " + LOCATION + " ")).hasToString(LOCATION);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "https://statesweep-inventory.s3.amazonaws.com/daily/manifest.json",
        "s3n://statesweep-inventory/daily/manifest.json",
        "s3://statesweep-inventory",
        "s3://statesweep-inventory/",
        "s3://statesweep-inventory/daily/",
        "dbfs:/inventory/daily/",
        "/",
        "statesweep-inventory/daily/manifest.json"})
    void refusesWhatIsNotAnObjectInABucket(String uri) {
      assertThatThrownBy(() -> InventoryManifest.Location.parse(uri))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("not a manifest location such as s3://inventory-bucket/path/manifest.json (s3://, s3a://, dbfs:/,"
              + " file:/ or an absolute local path)");
    }
  }

  @Test
  void refusesAManifestWhoseColumnsLackWhatAListingGives() {
    assertThatThrownBy(() -> new InventoryManifest(LOCATION, "statesweep-archive", "statesweep-inventory",
        InventoryManifest.Format.ORC, List.of("bucket", "key", "size"), TAKEN_AT, List.of()))
        .hasMessage("Inventory manifest " + LOCATION + ": fileSchema has no last_modified_date, e_tag column;"
            + " configure the inventory with the Size, Last modified and ETag fields, or use --listing list");
  }
}
