package io.statesweep.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings precedence (flags, then environment, then conf file, then defaults) and their validation. */
class RunOptionsTest {

  private static RunOptions options(Map<String, String> flags, Map<String, String> environment, Path conf) {
    return RunOptions.from(Settings.resolve(flags, environment, conf));
  }

  @Test
  void defaultsFollowTheReferenceScript() {
    RunOptions options = options(Map.of("--bucket", "b", "--prefix", "cogram"), Map.of(), null);

    assertThat(options.dryRun()).isTrue();
    assertThat(options.graceDays()).isZero();
    assertThat(options.workers()).isEqualTo(16);
    assertThat(options.prefix().value()).isEqualTo("cogram/");
    assertThat(options.s3().region()).isNull();
    assertThat(options.s3().endpoint()).isNull();
    assertThat(options.s3().pathStyle()).isFalse();
    assertThat(options.layout().name()).isEqualTo("cogram");
  }

  @Test
  void flagsWinOverEnvironmentWhichWinsOverConfFile(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("statesweep.properties");
    Files.writeString(conf, "sweep.bucket=from-conf\nsweep.grace-days=3\nsweep.workers=8\nsweep.prefix=conf/\n");
    Map<String, String> environment = Map.of("COGRAM_CLEANUP_GRACE_DAYS", "5", "COGRAM_CLEANUP_WORKERS", "32");

    RunOptions options = options(Map.of("--workers", "4"), environment, conf);

    assertThat(options.bucket()).isEqualTo("from-conf");
    assertThat(options.graceDays()).isEqualTo(5);
    assertThat(options.workers()).isEqualTo(4);
    assertThat(options.prefix().value()).isEqualTo("conf/");
  }

  @Test
  void confFileAcceptsTheReferenceScriptsNames(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("legacy.properties");
    Files.writeString(conf, "bucket=legacy\nprefix=cogram/\ndry_run=1\ngrace_days=2\n");

    RunOptions options = options(Map.of(), Map.of(), conf);

    assertThat(options.bucket()).isEqualTo("legacy");
    assertThat(options.graceDays()).isEqualTo(2);
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
        .hasMessage("Missing bucket: give --bucket, set COGRAM_CLEANUP_BUCKET, or put sweep.bucket in a conf file");
  }

  @Test
  void refusesTheBucketRootUnlessAllowed() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b"), Map.of(), null))
        .hasMessageStartingWith("Refusing the bucket root as the export prefix");
    assertThat(options(Map.of("--bucket", "b", "--allow-bucket-root", "true"), Map.of(), null).prefix().isBucketRoot())
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
        .s3().pathStyle()).isTrue();
    assertThat(options(Map.of("--bucket", "b", "--prefix", "p", "--endpoint", "http://127.0.0.1:9000",
        "--path-style", "false"), Map.of(), null).s3().pathStyle()).isFalse();
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--endpoint", "not a uri"), Map.of(),
        null)).hasMessageStartingWith("Invalid sweep.endpoint 'not a uri' (from --endpoint)");
  }

  @Test
  void unknownConfKeysAreErrorsThatNameTheKey(@TempDir Path dir) throws IOException {
    Path conf = dir.resolve("typo.properties");
    Files.writeString(conf, "sweep.bucket=b\nsweep.grace-dyas=3\n");

    assertThatThrownBy(() -> options(Map.of(), Map.of(), conf))
        .hasMessageStartingWith("Unknown key sweep.grace-dyas in conf file " + conf);
  }

  @Test
  void unknownLayoutFileIsNamed() {
    assertThatThrownBy(() -> options(Map.of("--bucket", "b", "--prefix", "p", "--layout", "conf/nope.json"), Map.of(),
        null)).hasMessage("Layout file conf/nope.json does not exist (sweep.layout from --layout)");
  }
}
