package io.statesweep.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.plan.Grace;
import io.statesweep.scan.InventoryManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Settings precedence (flags, then environment, then the config file, then defaults) and their validation. */
class RunOptionsTest {

  private static RunOptions options(Map<String, String> flags, Map<String, String> environment, Path conf) {
    return RunOptions.from(Settings.resolve(flags, environment, conf));
  }

  @Test
  void defaultsFollowTheReferenceScript() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "cogram"), Map.of(), null);

    assertThat(options.dryRun()).isTrue();
    assertThat(options.export().graceDays()).isZero();
    assertThat(options.export().workers()).isEqualTo(16);
    assertThat(options.export().prefix().value()).isEqualTo("cogram/");
    assertThat(options.export().s3().region()).isNull();
    assertThat(options.export().s3().endpoint()).isNull();
    assertThat(options.export().s3().pathStyle()).isFalse();
    assertThat(options.export().layout().name()).isEqualTo("cogram");
  }

  @Test
  void flagsWinOverEnvironmentWhichWinsOverConfFile(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("statesweep.properties");
    Files.writeString(conf, "sweep.bucket=from-conf\nsweep.grace-days=3\nsweep.workers=8\nsweep.prefix=conf/\n");
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_GRACE_DAYS", "5", "COGRAM_CLEANUP_WORKERS", "32");

    RunOptions options = options(Map.of("--workers", "4"), environment, conf);

    assertThat(options.export().bucket()).isEqualTo("from-conf");
    assertThat(options.export().graceDays()).isEqualTo(5);
    assertThat(options.export().workers()).isEqualTo(4);
    assertThat(options.export().prefix().value()).isEqualTo("conf/");
  }

  @Test
  void confFileAcceptsTheReferenceScriptsNames(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("legacy.properties");
    Files.writeString(conf, "bucket=legacy\nprefix=cogram/\ndry_run=1\ngrace_days=2\n");

    RunOptions options = options(Map.of(), Map.of(), conf);

    assertThat(options.export().bucket()).isEqualTo("legacy");
    assertThat(options.export().graceDays()).isEqualTo(2);
    assertThat(options.dryRun()).isTrue();
  }

  @Test
  void dryRunAcceptsOnlyTrueFalseOneOrZero() {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("COGRAM_CLEANUP_DRY_RUN", "0"), null).dryRun())
        .isFalse();
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("COGRAM_CLEANUP_DRY_RUN", "1"), null)
        .dryRun()).isTrue();
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"),
        Map.of("COGRAM_CLEANUP_DRY_RUN", "TRUE"), null))
        .hasMessage("Invalid sweep.dry-run 'TRUE' (from COGRAM_CLEANUP_DRY_RUN): use true, false, 1 or 0");
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"),
        Map.of("COGRAM_CLEANUP_DRY_RUN", "maybe"), null))
        .hasMessage("Invalid sweep.dry-run 'maybe' (from COGRAM_CLEANUP_DRY_RUN): use true, false, 1 or 0");
  }

  @Test
  void refusesANegativeGracePeriod() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--grace-days", "-1"), Map.of(), null))
        .hasMessage("Invalid sweep.grace-days '-1' (from --grace-days): must be from 0 to 36500");
  }

  @Test
  void namesEveryWayToGiveAMissingBucket() {
    assertThatThrownBy(() -> options(Map.of("--prefix", "p"), Map.of(), null))
        .hasMessage("Missing bucket: give --bucket, set COGRAM_CLEANUP_BUCKET, or put sweep.bucket in the --config-file");
  }

  @Test
  void refusesTheBucketRootUnlessAllowed() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b"), Map.of(), null))
        .hasMessageStartingWith("Refusing the bucket root as the export prefix");
    assertThat(options(Map.of("--bucket", "b", "--allow-bucket-root", "true"), Map.of(), null).export().prefix().isBucketRoot())
        .isTrue();
  }

  @Test
  void refusesABucketGivenAsAnUrl() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "s3://b/cogram", "--prefix", "p"), Map.of(), null))
        .hasMessageContaining("give the bucket's name only");
  }

  @Test
  void endpointTurnsOnPathStyleUnlessToldOtherwise() {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--endpoint", "http://127.0.0.1:9000"), Map.of(), null)
        .export().s3().pathStyle()).isTrue();
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--endpoint", "http://127.0.0.1:9000",
        "--path-style", "false"), Map.of(), null).export().s3().pathStyle()).isFalse();
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--endpoint", "not a uri"), Map.of(),
        null)).hasMessageStartingWith("Invalid sweep.endpoint 'not a uri' (from --endpoint)");
  }

  @Test
  void unknownConfKeysAreErrorsThatNameTheKey(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("typo.properties");
    Files.writeString(conf, "sweep.bucket=b\nsweep.grace-dyas=3\n");

    assertThatThrownBy(() -> options(Map.of(), Map.of(), conf))
        .hasMessageStartingWith("Unknown key sweep.grace-dyas in --config-file " + conf);
  }

  @Test
  void unknownLayoutFileIsNamed() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--layout", "conf/nope.json"), Map.of(),
        null)).hasMessage("Layout file conf/nope.json does not exist (sweep.layout from --layout)");
  }

  private static final String MANIFEST = "s3://statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json";

  @Test
  void listsThePrefixUnlessToldToReadAnInventory() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p"), Map.of(), null);

    assertThat(options.plan().listing()).isEqualTo(PlanOptions.Listing.LIST);
    assertThat(options.plan().inventory()).isNull();
    assertThat(options.export().settings()).containsEntry("sweep.listing", "list").doesNotContainKey("sweep.inventory");
  }

  @Test
  void readsTheInventoryManifestGivenWithTheInventoryListing() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory",
        "--inventory", MANIFEST), Map.of(), null);

    assertThat(options.plan().listing()).isEqualTo(PlanOptions.Listing.INVENTORY);
    assertThat(options.plan().inventory()).isEqualTo(new InventoryManifest.Location(MANIFEST));
    assertThat(options.plan().inventory().scheme()).isEqualTo("s3");
    assertThat(options.export().settings()).containsEntry("sweep.listing", "inventory").containsEntry("sweep.inventory",
        MANIFEST);
  }

  @Test
  void readsAnS3aManifestAndTheListingInAnyCase() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "Inventory",
        "--inventory", "s3a://statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json"), Map.of(), null);

    assertThat(options.plan().listing()).isEqualTo(PlanOptions.Listing.INVENTORY);
    assertThat(options.plan().inventory().scheme()).isEqualTo("s3a");
  }

  @Test
  void takesTheInventoryFromTheEnvironment() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory"),
        Map.of("STATESWEEP_INVENTORY", MANIFEST), null);

    assertThat(options.plan().inventory()).hasToString(MANIFEST);
  }

  @Test
  void takesTheListingAndInventoryFromAConfFile(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("inventory.properties");
    Files.writeString(conf, "sweep.bucket=b\nsweep.prefix=p/\nsweep.listing=inventory\nsweep.inventory=" + MANIFEST
        + "\n");

    RunOptions options = options(Map.of(), Map.of(), conf);

    assertThat(options.plan().listing()).isEqualTo(PlanOptions.Listing.INVENTORY);
    assertThat(options.plan().inventory()).hasToString(MANIFEST);
  }

  @Test
  void theInventoryListingNeedsAnInventory() {
    String missing = "Missing inventory: --listing inventory needs --inventory (or STATESWEEP_INVENTORY, or"
        + " sweep.inventory in the --config-file) naming the report's manifest.json, such as"
        + " s3://inventory-bucket/b/daily/2026-11-28T01-00Z/manifest.json";

    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory"), Map.of(),
        null)).isInstanceOf(IllegalArgumentException.class).hasMessage(missing);
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory",
        "--inventory", " "), Map.of(), null)).hasMessage(missing);
  }

  @Test
  void anInventoryWithoutTheInventoryListingIsRefusedRatherThanIgnored() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--inventory", MANIFEST), Map.of(),
        null)).hasMessage("sweep.inventory is set (from --inventory) but the listing is 'list' (from default): add"
            + " --listing inventory to plan from the report, or drop the inventory");
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "list"),
        Map.of("STATESWEEP_INVENTORY", MANIFEST), null))
        .hasMessage("sweep.inventory is set (from STATESWEEP_INVENTORY) but the listing is 'list' (from --listing):"
            + " add --listing inventory to plan from the report, or drop the inventory");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "dbfs:/statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json",
      "file:/mnt/statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json",
      "/Volumes/main/ops/inventory/b/daily/2026-11-28T01-00Z/manifest.json"})
  void readsAManifestFromDbfsOrALocalPath(String inventory) {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory",
        "--inventory", inventory), Map.of(), null);

    assertThat(options.plan().inventory()).hasToString(inventory);
    assertThat(options.plan().inventory().dataFileScheme()).isEqualTo("s3");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "https://statesweep-inventory.s3.amazonaws.com/b/daily/2026-11-28T01-00Z/manifest.json",
      "s3n://statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json",
      "statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.json",
      "s3://statesweep-inventory/b/daily/2026-11-28T01-00Z/"})
  void refusesAnInventoryThatIsNotAManifestLocation(String inventory) {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory",
        "--inventory", inventory), Map.of(), null))
        .hasMessage("Invalid sweep.inventory '" + inventory + "' (from --inventory): not a manifest location such as"
            + " s3://inventory-bucket/path/manifest.json (s3://, s3a://, dbfs:/, file:/ or an absolute local path)");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "s3://statesweep-inventory/b/daily/2026-11-28T01-00Z",
      "s3://statesweep-inventory/b/daily/2026-11-28T01-00Z/manifest.checksum",
      "s3a://statesweep-inventory/b/daily/data/0b7e4c1a.csv.gz"})
  void refusesAnInventoryThatIsNotAManifest(String inventory) {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "inventory"),
        Map.of("STATESWEEP_INVENTORY", inventory), null))
        .hasMessage("Invalid sweep.inventory '" + inventory + "' (from STATESWEEP_INVENTORY): give the report's"
            + " manifest.json, not its folder or a data file");
  }

  @Test
  void refusesAnUnknownListing() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--listing", "bogus"), Map.of(), null))
        .hasMessage("Invalid sweep.listing 'bogus' (from --listing): use list or inventory");
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("STATESWEEP_LISTING", "s3"),
        null)).hasMessage("Invalid sweep.listing 's3' (from STATESWEEP_LISTING): use list or inventory");
  }

  // ---------------------------------------------------------------- grace by kind (--kind-grace-days)

  private static final String COGRAM_KINDS = "change_orders, chat, correspondence, documents, drawing_sets, drawings,"
      + " emails, knowledge, meetings, observations, reports, rfis, submittals, tasks, transmittals";

  private static RunOptions withKindGrace(String kindGraceDays) {
    return options(Map.of("--bucket", "b", "--prefix", "p", "--kind-grace-days", kindGraceDays), Map.of(), null);
  }

  @Test
  void noGraceByKindUnlessGiven() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--grace-days", "3"), Map.of(), null);

    assertThat(options.export().kindGraceDays()).isEmpty();
    assertThat(options.export().gracePolicy()).isEqualTo(Grace.of(3));
  }

  @Test
  void graceByKindOverridesTheGlobalGraceForItsKindsOnly() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--grace-days", "1",
        "--kind-grace-days", "meetings=7,emails=2"), Map.of(), null);

    assertThat(options.export().kindGraceDays()).isEqualTo(Map.of("meetings", 7, "emails", 2));
    assertThat(options.export().gracePolicy().forKind("meetings")).isEqualTo(new Grace.Applied(7, "kind meetings"));
    assertThat(options.export().gracePolicy().forKind("emails")).isEqualTo(new Grace.Applied(2, "kind emails"));
    assertThat(options.export().gracePolicy().forKind("documents")).isEqualTo(new Grace.Applied(1, "global"));
    assertThat(options.export().settings()).containsEntry("sweep.grace-days.by-kind", "meetings=7,emails=2");
  }

  @Test
  void graceByKindToleratesSpacesAndEmptyEntries() {
    assertThat(withKindGrace(" meetings = 7 ,, emails=0 ,").export().kindGraceDays())
        .isEqualTo(Map.of("meetings", 7, "emails", 0));
  }

  @Test
  void graceByKindComesFromTheEnvironmentOrAConfFile(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("kinds.properties");
    Files.writeString(conf, "sweep.bucket=b\nsweep.prefix=p/\nsweep.grace-days.by-kind=drawings=90\n");

    assertThat(options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("STATESWEEP_KIND_GRACE_DAYS", "emails=7"),
        null).export().kindGraceDays()).isEqualTo(Map.of("emails", 7));
    assertThat(options(Map.of(), Map.of(), conf).export().kindGraceDays()).isEqualTo(Map.of("drawings", 90));
    assertThat(options(Map.of(), Map.of("STATESWEEP_KIND_GRACE_DAYS", "emails=7"), conf).export().kindGraceDays())
        .isEqualTo(Map.of("emails", 7));
  }

  @Test
  void refusesAKindThatIsNotInTheLayoutAndListsTheLayoutsKinds() {
    assertThatThrownBy(() -> withKindGrace("meetings=7,videos=3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'meetings=7,videos=3' (from --kind-grace-days): 'videos' is not"
            + " a kind of layout cogram; its kinds are " + COGRAM_KINDS);
  }

  @Test
  void checksKindsAgainstTheLayoutGiven(@TempDir Path dir) throws IOException {
    Path layout = dir.resolve("site.json");
    Files.writeString(layout, """
        {"name": "site", "exporter_folder": "_site", "kinds": ["photos", "notes"],
         "places": [{"path": "jobs/{job}/{kind}/{record}/state.json", "record_type": "job_record"}]}
        """);
    Map<String, String> flags = Map.of("--bucket", "b", "--prefix", "p", "--layout", layout.toString());

    assertThat(options(flags, Map.of("STATESWEEP_KIND_GRACE_DAYS", "photos=30"), null).export().kindGraceDays())
        .isEqualTo(Map.of("photos", 30));
    assertThatThrownBy(() -> options(flags, Map.of("STATESWEEP_KIND_GRACE_DAYS", "meetings=7"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'meetings=7' (from STATESWEEP_KIND_GRACE_DAYS): 'meetings' is not"
            + " a kind of layout site; its kinds are notes, photos");
  }

  @Test
  void refusesAnEntryThatIsNotKindEqualsDays() {
    assertThatThrownBy(() -> withKindGrace("meetings=7,emails"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'meetings=7,emails' (from --kind-grace-days): 'emails' is not"
            + " kind=days, such as emails=7");
  }

  @ParameterizedTest
  @ValueSource(strings = {"seven", "", "1.5", "7d"})
  void refusesDaysThatAreNotAWholeNumber(String days) {
    assertThatThrownBy(() -> withKindGrace("emails=" + days))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'emails=" + days + "' (from --kind-grace-days): the days of"
            + " emails, '" + days + "', are not a whole number");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "36501"})
  void refusesDaysOutsideZeroTo36500(String days) {
    assertThatThrownBy(() -> withKindGrace("emails=" + days))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'emails=" + days + "' (from --kind-grace-days): the days of"
            + " emails must be from 0 to 36500");
    assertThat(withKindGrace("emails=36500").export().kindGraceDays()).containsEntry("emails", 36_500);
  }

  @Test
  void refusesAKindGivenTwice() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"),
        Map.of("STATESWEEP_KIND_GRACE_DAYS", "emails=1,meetings=2,emails=3"), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.grace-days.by-kind 'emails=1,meetings=2,emails=3' (from"
            + " STATESWEEP_KIND_GRACE_DAYS): kind emails is given twice");
  }

  // ---------------------------------------------------------------- execute: approval and plan age

  @Test
  void executeNeedsAnApprovalAndAPlanAtMost24HoursOldByDefault() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p"), Map.of(), null);

    assertThat(options.execute().skipApproval()).isFalse();
    assertThat(options.execute().maxPlanAge()).isEqualTo(Duration.ofHours(24));
  }

  @ParameterizedTest
  @CsvSource({"90m, PT1H30M", "24h, PT24H", "2d, PT48H", "36H, PT36H", "' 12 h ', PT12H"})
  void maxPlanAgeIsMinutesHoursOrDays(String value, Duration expected) {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--max-plan-age", value), Map.of(), null).execute().maxPlanAge())
        .isEqualTo(expected);
  }

  @Test
  void maxPlanAgeComesFromTheEnvironment() {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("STATESWEEP_MAX_PLAN_AGE", "2d"), null)
        .execute().maxPlanAge()).isEqualTo(Duration.ofDays(2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"24", "1w", "h", "-1h", "1.5h", "1234567h"})
  void refusesAMaxPlanAgeWithoutAWholeNumberAndAUnit(String value) {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--max-plan-age", value), Map.of(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.execute.max-plan-age '" + value + "' (from --max-plan-age): give a number and s, m,"
            + " h or d, such as 24h");
  }

  @ParameterizedTest
  @CsvSource({"10m, PT10M", "3s, PT3S", "90s, PT1M30S"})
  void theLockTtlTakesSecondsToo(String value, Duration expected) {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--lock-ttl", value), Map.of(), null).export().lockTtl())
        .isEqualTo(expected);
  }

  @Test
  void refusesALockTtlUnderThreeSeconds() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--lock-ttl", "2s"), Map.of(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.lock.ttl '2s' (from --lock-ttl): must be at least 3s (the lock is renewed every"
            + " third of it)");
  }

  @Test
  void refusesAMaxPlanAgeOfZero() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"), Map.of("STATESWEEP_MAX_PLAN_AGE", "0m"),
        null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.execute.max-plan-age '0m' (from STATESWEEP_MAX_PLAN_AGE): must be more than 0");
  }

  @Test
  void skipApprovalIsTrueOrFalse() {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--skip-approval", "true"), Map.of(), null)
        .execute().skipApproval()).isTrue();
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--skip-approval", "yes"), Map.of(),
        null)).hasMessage("Invalid sweep.execute.skip-approval 'yes' (from --skip-approval): use true, false, 1 or 0");
  }

  @ParameterizedTest
  @CsvSource({"main.statesweep, main.statesweep", "statesweep, statesweep", "' Main_2.Sweep ', Main_2.Sweep"})
  void catalogSchemaIsACatalogAndASchemaOrASchema(String given, String expected) {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "p", "--catalog-schema", given), Map.of(), null);

    assertThat(options.export().catalogSchema()).isEqualTo(expected);
  }

  @Test
  void withoutACatalogSchemaNothingIsRegistered() {
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p"), Map.of(), null).export().catalogSchema()).isNull();
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--catalog-schema", " "), Map.of(), null)
        .export().catalogSchema()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a.b.c", "main.", ".statesweep", "my-schema", "main.`x`", "sweep; DROP TABLE runs",
      "main..statesweep", "statés"})
  void aCatalogSchemaThatIsNotOneOrTwoNamesIsRefusedNamingTheSetting(String given) {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p"),
        Map.of("STATESWEEP_CATALOG_SCHEMA", given), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid sweep.catalog-schema '" + given + "' (from STATESWEEP_CATALOG_SCHEMA): give"
            + " catalog.schema (main.statesweep) or a schema (statesweep), each name of letters, digits and"
            + " underscores only");
  }

  @Test
  void catalogSchemaNamesAreBackquotedInSql() {
    assertThat(CatalogSchema.parse("main.statesweep", null).sql("runs")).isEqualTo("`main`.`statesweep`.`runs`");
    assertThat(CatalogSchema.parse("statesweep", null).sql()).isEqualTo("`statesweep`");
    assertThatThrownBy(() -> new io.statesweep.api.Tables("/wh", "a.b.c"))
        .hasMessage("Invalid sweep.catalog-schema 'a.b.c': give catalog.schema (main.statesweep) or a schema"
            + " (statesweep), each name of letters, digits and underscores only");
  }

  @Test
  void aRunIsBoundedByKeysAndBytesAndScopedByFoldersProjectsAndKinds() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "cogram/", "--max-deletes", "1000",
        "--max-bytes", "500G", "--scope-prefix", "projects/p-1/, workflows/", "--projects", "p-1,p-2",
        "--kinds", "emails"), Map.of(), null);

    assertThat(options.execute().deletes().maxDeletes()).isEqualTo(1000);
    assertThat(options.execute().deletes().maxBytes()).isEqualTo(500L << 30);
    assertThat(options.plan().scope().prefixes()).containsExactly("cogram/projects/p-1/", "cogram/workflows/");
    assertThat(options.plan().scope().projects()).containsExactlyInAnyOrder("p-1", "p-2");
    assertThat(options.plan().scope().kinds()).containsExactly("emails");
    RunOptions defaults = options(Map.of("--bucket", "b", "--prefix", "cogram/"), Map.of(), null);
    assertThat(defaults.execute().deletes().maxDeletes()).isZero();
    assertThat(defaults.execute().deletes().maxBytes()).isZero();
    assertThat(defaults.plan().scope().all()).isTrue();
    assertThat(options(Map.of("--bucket", "b", "--prefix", "cogram/", "--max-bytes", "1048576"), Map.of(), null)
        .execute().deletes().maxBytes()).isEqualTo(1L << 20);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--max-bytes|5 GB please|Invalid sweep.bound.max-bytes '5 GB please' (from --max-bytes): give a whole number of"
          + " bytes, or one with K, M, G or T, such as 500G",
      "--max-deletes|-1|Invalid sweep.bound.max-deletes '-1' (from --max-deletes): must be from 0 to 2147483647",
      "--scope-prefix|cogram/projects/|Invalid sweep.scope.prefixes 'cogram/projects/' (from --scope-prefix):"
          + " 'cogram/projects/' is given relative to the export prefix cogram/, such as projects/p-0001/",
      "--scope-prefix|projects/../x/|Invalid sweep.scope.prefixes 'projects/../x/' (from --scope-prefix):"
          + " 'projects/../x/' has a . or .. folder",
      "--scope-prefix|projects/p-1|Invalid sweep.scope.prefixes 'projects/p-1' (from --scope-prefix): 'projects/p-1'"
          + " is no folder: a scope is a folder, given with its trailing slash, such as projects/p-1/ (without it, the"
          + " scope would also take every folder whose name starts with p-1)",
      "--projects|p-1/emails|Invalid sweep.scope.projects 'p-1/emails' (from --projects): 'p-1/emails' is no project"
          + " id (give the folder name under projects/, without a /)"})
  void aBadBoundOrScopeIsRefusedNamingItsSource(String flag, String value, String message) {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "cogram/", flag, value), Map.of(), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }
}
