package io.statesweep.spark.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.spark.tables.PlanDigest;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import scala.collection.JavaConverters;

/** The canonical serialization behind a plan's digest, on rows built by hand (no Spark session). */
class PlanDigestTest {
  private static final StructType DELETE = new StructType()
      .add("key", DataTypes.StringType)
      .add("etag", DataTypes.StringType)
      .add("last_modified", DataTypes.TimestampType)
      .add("size", DataTypes.LongType)
      .add("role", DataTypes.StringType);
  private static final StructType SCHEMA = new StructType()
      .add("state_file_key", DataTypes.StringType)
      .add("ids", DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType))
      .add("action", DataTypes.StringType)
      .add("grace_days", DataTypes.IntegerType)
      .add("keys_to_delete", DataTypes.LongType)
      .add("deletes", DataTypes.createArrayType(DELETE));
  private static final Timestamp SEEN = Timestamp.from(Instant.parse("2026-11-30T10:15:30.123456Z"));

  @Test
  void sameRowSerializesTheSameWhateverTheColumnOrderMapOrderOrCollectionClass() {
    Row row = plan(Map.of("project", "p1", "record", "m1"), "delete_record", deletes("abc", "def"));
    Map<String, String> reversedIds = new LinkedHashMap<>();
    reversedIds.put("record", "m1");
    reversedIds.put("project", "p1");
    StructType reordered = new StructType()
        .add("deletes", SCHEMA.apply("deletes").dataType())
        .add("keys_to_delete", DataTypes.LongType)
        .add("action", DataTypes.StringType)
        .add("grace_days", DataTypes.IntegerType)
        .add("ids", SCHEMA.apply("ids").dataType())
        .add("state_file_key", DataTypes.StringType);
    Row sameInOtherOrder = new GenericRowWithSchema(new Object[] {
        JavaConverters.asScalaBuffer(new ArrayList<Object>(deletes("abc", "def"))).toSeq(), 2L, "delete_record", 7,
        JavaConverters.mapAsScalaMap(reversedIds), "cogram/projects/p1/meetings/m1/state.json"}, reordered);

    assertThat(PlanDigest.serialize(reordered, sameInOtherOrder))
        .isEqualTo(PlanDigest.serialize(SCHEMA, row));
  }

  @Test
  void aNullColumnIsLeftOutSoAColumnAddedLaterKeepsOlderDigests() {
    Row row = plan(Map.of("project", "p1"), "keep", List.of());
    StructType withNewColumn = SCHEMA.add("missing_files", DataTypes.createArrayType(DataTypes.StringType));
    Object[] values = new Object[withNewColumn.size()];
    for (int i = 0; i < SCHEMA.size(); i++) {
      values[i] = row.get(i);
    }
    Row withNull = new GenericRowWithSchema(values, withNewColumn);
    values = values.clone();
    values[SCHEMA.size()] = List.of();
    Row withEmpty = new GenericRowWithSchema(values, withNewColumn);

    assertThat(PlanDigest.serialize(withNewColumn, withNull)).isEqualTo(PlanDigest.serialize(SCHEMA, row));
    assertThat(PlanDigest.serialize(withNewColumn, withEmpty)).isNotEqualTo(PlanDigest.serialize(SCHEMA, row));
  }

  @Test
  void everyValueCountsDeletesInTheirOrderAndNullApartFromEmpty() {
    byte[] row = PlanDigest.serialize(SCHEMA, plan(Map.of("project", "p1"), "delete_record", deletes("abc", "def")));

    assertThat(List.of(
        plan(Map.of("project", "p1"), "delete_removed_files", deletes("abc", "def")),
        plan(Map.of("project", "p2"), "delete_record", deletes("abc", "def")),
        plan(Map.of("project", "p1"), "delete_record", deletes("abc", "dee")),
        plan(Map.of("project", "p1"), "delete_record", List.of(deletes("abc", "def").get(1), deletes("abc", "def").get(0))),
        plan(Map.of("project", "p1"), "delete_record", deletes("abc", "def").subList(0, 1)),
        plan(Map.of("project", "p1"), "", deletes("abc", "def")),
        plan(Map.of("project", "p1"), null, deletes("abc", "def"))))
        .allSatisfy(changed -> assertThat(PlanDigest.serialize(SCHEMA, changed)).isNotEqualTo(row));
    assertThat(PlanDigest.serialize(SCHEMA, plan(Map.of("project", "p1"), "", List.of())))
        .isNotEqualTo(PlanDigest.serialize(SCHEMA, plan(Map.of("project", "p1"), null, List.of())));
  }

  @Test
  void aTimestampIsItsInstantNotItsClassOrZone() {
    Row asTimestamp = new GenericRowWithSchema(new Object[] {"k", SEEN}, new StructType()
        .add("state_file_key", DataTypes.StringType).add("due_at", DataTypes.TimestampType));
    Row asInstant = new GenericRowWithSchema(new Object[] {"k", SEEN.toInstant()}, asTimestamp.schema());
    Row aMicroLater = new GenericRowWithSchema(new Object[] {"k", SEEN.toInstant().plusNanos(1000)},
        asTimestamp.schema());

    assertThat(PlanDigest.serialize(asInstant.schema(), asInstant))
        .isEqualTo(PlanDigest.serialize(asTimestamp.schema(), asTimestamp))
        .isNotEqualTo(PlanDigest.serialize(aMicroLater.schema(), aMicroLater));
  }

  private static Row plan(Map<String, String> ids, String action, List<Row> deletes) {
    return new GenericRowWithSchema(new Object[] {"cogram/projects/p1/meetings/m1/state.json",
        JavaConverters.mapAsScalaMap(new LinkedHashMap<>(ids)), action, 7, (long) deletes.size(),
        JavaConverters.asScalaBuffer(new ArrayList<Object>(deletes)).toSeq()}, SCHEMA);
  }

  private static List<Row> deletes(String fileEtag, String stateEtag) {
    return List.of(
        new GenericRowWithSchema(new Object[] {"cogram/projects/p1/meetings/m1/minutes.pdf", fileEtag, SEEN, 7L, "file"},
            DELETE),
        new GenericRowWithSchema(new Object[] {"cogram/projects/p1/meetings/m1/state.json", stateEtag, SEEN, 90L,
            "state_file"}, DELETE));
  }
}
