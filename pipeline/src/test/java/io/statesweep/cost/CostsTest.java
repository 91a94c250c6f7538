package io.statesweep.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CostsTest {
  private static final PriceTable AWS = PriceTable.builtIn();

  private static PriceTable table(String json) {
    return PriceTable.parse(json.getBytes(StandardCharsets.UTF_8), "test.json");
  }

  private static final String SMALL = """
      {"name": "small", "currency": "USD", "checked": "2026-12-01",
       "request_classes": {"ListObjectsV2": "tier1", "GetObject": "tier2", "DeleteObjects": "delete"},
       "default_request_class": "tier2", "default_storage_class": "STANDARD",
       "minimum_days": {"STANDARD_IA": 30},
       "regions": {"r1": {"requests_per_1000": {"tier1": 0.005, "tier2": 0.0004, "delete": 0},
                          "storage_per_gb_month": {"STANDARD": 0.023, "STANDARD_IA": 0.0125}}}}
      """;

  @Test
  void theBuiltInTableHasTheMainRegionsAndSaysWhenAndWhereItsPricesComeFrom() {
    assertThat(AWS.regionNames()).contains("us-east-1", "us-west-2", "eu-west-1", "eu-central-1");
    assertThat(AWS.checked()).isEqualTo("2026-12-01");
    assertThat(AWS.source()).contains("aws.amazon.com/s3/pricing");
    assertThat(AWS.region("us-east-1").requestsPer1000().get("tier1")).isEqualByComparingTo("0.005");
    assertThat(AWS.region("us-east-1").storagePerGbMonth().get("STANDARD")).isEqualByComparingTo("0.023");
    assertThat(AWS.requestClass("ListObjectsV2")).isEqualTo("tier1");
    assertThat(AWS.requestClass("GetBucketVersioning")).isEqualTo("tier2");
    assertThat(AWS.requestClass("DeleteObjects")).isEqualTo("delete");
    assertThat(AWS.region("us-east-1").requestsPer1000().get("delete")).isEqualByComparingTo("0");
  }

  @Test
  void pricesRequestsPerThousandByTheirClassWithoutFloatingPoint() {
    PriceTable prices = table(SMALL);
    // 3 LIST at 0.005/1000, 7 GET at 0.0004/1000, 1000 DeleteObjects free, 1 unknown operation as tier2.
    BigDecimal cost = Costs.requests(prices, prices.region("r1"),
        Map.of("ListObjectsV2", 3L, "GetObject", 7L, "DeleteObjects", 1000L, "HeadObject", 1L));
    assertThat(cost).isEqualByComparingTo("0.0000182");
    assertThat(Costs.format(cost)).isEqualTo("0.000018");
    assertThat(Costs.format(Costs.requests(prices, prices.region("r1"), Map.of("ListObjectsV2", 1_000_000L))))
        .isEqualTo("5.000000");
  }

  @Test
  void pricesStorageByClassPerGbMonthOfTwoToTheThirtyBytes() {
    PriceTable prices = table(SMALL);
    long gb = 1L << 30;
    BigDecimal month = Costs.storagePerMonth(prices, prices.region("r1"),
        Map.of("STANDARD", 10 * gb, "STANDARD_IA", 4 * gb, "GLACIER", 2 * gb));
    // GLACIER has no price in this table: priced as the default class, STANDARD.
    assertThat(month).isEqualByComparingTo("0.326"); // 12 x 0.023 + 4 x 0.0125
    assertThat(Costs.format(Costs.storagePerMonth(prices, prices.region("r1"), Map.of("STANDARD", 1L))))
        .isEqualTo("0.000000");
  }

  @Test
  void chargesTheDaysLeftOfAClassMinimumDuration() {
    Instant written = Instant.parse("2026-11-01T12:00:00Z");
    assertThat(Costs.daysLeft(30, written, Instant.parse("2026-11-11T11:59:59Z"))).isEqualTo(21);
    assertThat(Costs.daysLeft(30, written, Instant.parse("2026-11-11T12:00:00Z"))).isEqualTo(20);
    assertThat(Costs.daysLeft(30, written, Instant.parse("2027-01-01T00:00:00Z"))).isZero();
    assertThat(Costs.daysLeft(0, written, written)).isZero();
    PriceTable prices = table(SMALL);
    long gb = 1L << 30;
    // 3 GB of STANDARD_IA with 20 days left: 3 x 0.0125 x 20 / 30.
    BigDecimal charge = Costs.earlyDeletion(prices, prices.region("r1"),
        Map.of("STANDARD_IA", BigDecimal.valueOf(3 * gb).multiply(BigDecimal.valueOf(20))));
    assertThat(charge).isEqualByComparingTo("0.025");
  }

  @Test
  void refusesATableThatCannotPriceWhatItNames() {
    assertThatThrownBy(() -> table("[1]"))
        .hasMessage("Invalid price table test.json: not a JSON object");
    assertThatThrownBy(() -> table(SMALL.replace("\"tier2\": 0.0004, ", "")))
        .hasMessage("Invalid price table test.json: field regions.r1.requests_per_1000 has no price for request class tier2");
    assertThatThrownBy(() -> table(SMALL.replace("\"STANDARD\": 0.023", "\"STANDARD\": \"cheap\"")))
        .hasMessage("Invalid price table test.json: field regions.r1.storage_per_gb_month.STANDARD is not a price"
            + " (a number of dollars, 0 or more)");
    assertThatThrownBy(() -> table(SMALL.replace("\"USD\"", "\"EUR\"")))
        .hasMessage("Invalid price table test.json: field currency is EUR; only USD is supported");
    assertThatThrownBy(() -> table(SMALL).region("eu-north-1"))
        .hasMessage("Price table test.json has no prices for region eu-north-1; its regions are r1. Give --prices with"
            + " a file that has it");
  }

  @Test
  void summaryPairsKeepTheirNamesOrderAndFormat() {
    PriceTable prices = table(SMALL);
    long gb = 1L << 30;
    PlanCost cost = PlanCost.priced(prices, "r1", "--region", Map.of("ListObjectsV2", 4L, "GetObject", 96L),
        Map.of("GetObject", 192L, "ListObjectsV2", 96L, "DeleteObjects", 9L), Map.of("STANDARD", 2 * gb),
        Map.of(), "Off", null);
    assertThat(cost.summaryPairs()).containsExactly(Map.entry("requests", "100"), Map.entry("cost_usd", "0.000058"),
        Map.entry("execute_requests", "297"), Map.entry("execute_cost_usd", "0.000557"),
        Map.entry("saves_usd_per_month", "0.046000"), Map.entry("early_delete_usd", "0.000000"),
        Map.entry("price_region", "r1"), Map.entry("bucket_versioning", "Off"));
    PlanCost unpriced = PlanCost.priced(prices, "ap-south-1", "--region", Map.of("GetObject", 1L), Map.of(),
        Map.of(), Map.of(), "unknown", "why");
    assertThat(unpriced.summaryPairs()).containsEntry("cost_usd", "n/a").containsEntry("requests", "1")
        .containsEntry("price_region", "ap-south-1");
  }

  @Test
  void aVersionedBucketFreesBytesOnlyWhenNoncurrentVersionsExpire() {
    assertThat(VersioningNote.of("b", "cogram/", "Off", null, 10)).isNull();
    assertThat(VersioningNote.of("b", "cogram/", "Enabled", null, 10)).isEqualTo("bucket b has versioning Enabled: a"
        + " delete keeps each object as a noncurrent version behind a delete marker, so the 10 bytes this plan deletes"
        + " are freed, and stop costing, only when noncurrent versions expire. Add a lifecycle rule that expires"
        + " noncurrent versions, such as {\"Rules\":[{\"ID\":\"expire-noncurrent-versions\",\"Filter\":{\"Prefix\":"
        + "\"cogram/\"},\"Status\":\"Enabled\",\"NoncurrentVersionExpiration\":{\"NoncurrentDays\":30},\"Expiration\":"
        + "{\"ExpiredObjectDeleteMarker\":true}}]}");
    assertThat(VersioningNote.of("b", "", "unknown", "AccessDenied", 10))
        .startsWith("the versioning of bucket b is unknown (AccessDenied): on a versioned bucket the 10 bytes");
  }

  @Test
  void aVersionedBucketsNoteCountsTheNoncurrentVersionsTheListingSeesOrSaysItCannot() {
    assertThat(VersioningNote.of("b", "cogram/", "Suspended", null, 10,
        NoncurrentVersions.counted(7, 4096, "in the S3 Inventory report taken at 2026-11-28T01:00:00Z")))
        .contains(" only when noncurrent versions expire. 7 noncurrent versions (4096 bytes) are already under cogram/"
            + " (in the S3 Inventory report taken at 2026-11-28T01:00:00Z): they too cost until they expire. Add a"
            + " lifecycle rule that expires noncurrent versions, such as {");
    assertThat(VersioningNote.of("b", "", "Enabled", null, 10, NoncurrentVersions.notListed()))
        .contains(" only when noncurrent versions expire. The noncurrent versions already in the bucket are not"
            + " counted: ListObjectsV2 lists current versions only; an S3 Inventory report of all versions"
            + " (IncludedObjectVersions All, read with --listing inventory) counts them, as does ListObjectVersions of"
            + " the prefix. Add a lifecycle rule");
    assertThat(NoncurrentVersions.notInReport().text("cogram/")).isEqualTo("the noncurrent versions already under"
        + " cogram/ are not counted: the S3 Inventory report lists current versions only (IncludedObjectVersions"
        + " Current); an S3 Inventory report of all versions (IncludedObjectVersions All, read with --listing"
        + " inventory) counts them, as does ListObjectVersions of the prefix");
    // Not on a bucket that keeps no versions, and not where the versioning is unknown: the line stays as it was.
    assertThat(VersioningNote.of("b", "cogram/", "Off", null, 10, NoncurrentVersions.notListed())).isNull();
    assertThat(VersioningNote.of("b", "cogram/", "unknown", "AccessDenied", 10, NoncurrentVersions.notListed()))
        .isEqualTo(VersioningNote.of("b", "cogram/", "unknown", "AccessDenied", 10));
  }
}
