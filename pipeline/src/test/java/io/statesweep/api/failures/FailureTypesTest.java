package io.statesweep.api.failures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.config.RunOptions;
import io.statesweep.config.Settings;
import io.statesweep.cost.PriceTable;
import io.statesweep.layout.Layout;
import io.statesweep.plan.FailOn;
import io.statesweep.plan.Grace;
import io.statesweep.scan.InventoryManifest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each failure of a setting, or of a file a setting names, is a {@link BadSettingsException} with the message it
 * always had; a record that checks its own fields still throws a plain {@link IllegalArgumentException} (a bug, not
 * bad settings). Both typed failures a caller may have caught as {@link IllegalArgumentException} still are one.
 */
class FailureTypesTest {

  private static Settings settings(Map<String, String> flags) {
    Map<String, String> all = new java.util.HashMap<>(Map.of("--bucket", "b", "--prefix", "cogram/"));
    all.putAll(flags);
    return Settings.resolveText(all, Map.of(), null, null);
  }

  @Test
  void aBadSettingIsBadSettings() {
    assertThatThrownBy(() -> RunOptions.from(settings(Map.of("--grace-days", "seven"))))
        .isExactlyInstanceOf(BadSettingsException.class)
        .hasMessage("Invalid sweep.grace-days 'seven' (from --grace-days): not a whole number");
    assertThatThrownBy(() -> RunOptions.from(settings(Map.of("--prefix", "a//b/"))))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessageEndingWith("(from --prefix)");
    assertThatThrownBy(() -> RunOptions.from(Settings.resolveText(Map.of(), Map.of(), null, null)))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessageStartingWith("Missing bucket: give --bucket");
    assertThatThrownBy(() -> Settings.resolveText(Map.of(), Map.of(), "x.properties", "sweep.nope=1"))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessageStartingWith("Unknown key sweep.nope in --config-file");
    assertThatThrownBy(() -> FailOn.parse("gone", "--fail-on"))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessageStartingWith("Invalid sweep.fail-on 'gone'");
  }

  @Test
  void aFileASettingNamesThatCannotBeUsedIsBadSettings() {
    assertThatThrownBy(() -> Layout.parse("[]", "my-layout.json"))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessage("Invalid layout my-layout.json: not a JSON object");
    assertThatThrownBy(() -> Layout.parse("{\"name\": \"x\", \"exporter_folder\": \"_x\", \"kinds\": [],"
        + " \"places\": [{\"path\": \"a/{b/state.json\", \"record_type\": \"t\"}]}", "my-layout.json"))
        .isExactlyInstanceOf(BadSettingsException.class)
        .hasMessageStartingWith("Invalid layout my-layout.json: places[0]: place a/{b/state.json");
    assertThatThrownBy(() -> PriceTable.parse("{}".getBytes(StandardCharsets.UTF_8), "prices.json"))
        .isExactlyInstanceOf(BadSettingsException.class).hasMessageStartingWith("Invalid price table prices.json: field");
    assertThatThrownBy(() -> InventoryManifest.parse("[]".getBytes(StandardCharsets.UTF_8), "s3://i/manifest.json"))
        .isExactlyInstanceOf(BadSettingsException.class)
        .hasMessage("Inventory manifest s3://i/manifest.json is not a JSON object");
  }

  @Test
  void aRecordThatChecksItsOwnFieldsThrowsABugNotBadSettings() {
    assertThatThrownBy(() -> new Grace(-1, Map.of()))
        .isExactlyInstanceOf(IllegalArgumentException.class).isNotInstanceOf(BadSettingsException.class);
  }

  @Test
  void badSettingsAndRefusedPlansAreStillIllegalArgumentExceptions() {
    assertThat(new BadSettingsException("x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(new PlanRefusedException("x")).isInstanceOf(IllegalArgumentException.class)
        .isNotInstanceOf(BadSettingsException.class);
    assertThat(new RunLockException.Held("x")).isNotInstanceOf(IllegalArgumentException.class);
    assertThat(new RunLockException.Denied("x", "s3:PutObject", null).permission()).isEqualTo("s3:PutObject");
  }
}
