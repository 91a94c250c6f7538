package io.statesweep.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.statesweep.store.FileSource;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config file and a layout file are read by a {@link FileSource} (Hadoop's FileSystem on a run), so they may
 * live in S3 or DBFS: their values name the file they came from, and a file that cannot be read is named with the
 * cause.
 */
class ConfigFileSourceTest {
  private static final String CONFIG = "s3a://statesweep-conf/daily.properties";
  private static final String LAYOUT = "s3a://statesweep-conf/layouts/tiny.json";
  private static final String TINY = """
      {"name": "tiny", "exporter_folder": "_cogram", "kinds": ["emails"],
       "places": [{"path": "projects/{project}/{kind}/{record}/state.json", "record_type": "project_record"}]}
      """;

  /** Files by location; records what was read. */
  private static final class FakeFiles implements FileSource {
    private final Map<String, String> files;
    private final List<String> reads = new ArrayList<>();

    FakeFiles(Map<String, String> files) {
      this.files = files;
    }

    @Override
    public byte[] read(String location, int maxBytes) throws IOException {
      reads.add(location);
      if (location.contains("forbidden")) {
        throw new AccessDeniedException(location, null, "403 Forbidden");
      }
      String text = files.get(location);
      if (text == null) {
        throw new FileNotFoundException("No such file or directory: " + location);
      }
      return text.getBytes(StandardCharsets.UTF_8);
    }
  }

  @Test
  void readsTheConfigFileAndTheLayoutItNamesThroughTheFileSource() {
    FakeFiles files = new FakeFiles(Map.of(CONFIG, "sweep.bucket=b\nsweep.prefix=cogram/\nsweep.grace-days=7\n"
        + "sweep.layout=" + LAYOUT + "\n", LAYOUT, TINY));

    Settings settings = Settings.resolve(Map.of(), Map.of(), CONFIG, files);
    RunOptions options = RunOptions.from(settings, files);

    assertThat(settings.value(Settings.GRACE_DAYS)).isEqualTo(new Settings.Value("7", CONFIG + ": sweep.grace-days"));
    assertThat(options.export().bucket()).isEqualTo("b");
    assertThat(options.export().layout().name()).isEqualTo("tiny");
    assertThat(options.export().layout().origin()).isEqualTo(LAYOUT);
    assertThat(files.reads).containsExactly(CONFIG, LAYOUT);
  }

  @Test
  void aBuiltInLayoutNameReadsNoFile() {
    FakeFiles files = new FakeFiles(Map.of());

    RunOptions options = RunOptions.from(Settings.resolve(Map.of("--bucket", "b", "--prefix", "p"), Map.of(), null,
        files), files);

    assertThat(options.export().layout().name()).isEqualTo("cogram");
    assertThat(files.reads).isEmpty();
  }

  @Test
  void aConfigFileThatCannotBeReadIsNamedWithTheCause() {
    FakeFiles files = new FakeFiles(Map.of());

    assertThatThrownBy(() -> Settings.resolve(Map.of(), Map.of(), CONFIG, files))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read --config-file " + CONFIG + ": no such file");
    assertThatThrownBy(() -> Settings.resolve(Map.of(), Map.of(), "s3a://forbidden/x.properties", files))
        .hasMessage("Cannot read --config-file s3a://forbidden/x.properties: s3a://forbidden/x.properties: 403 Forbidden");
  }

  @Test
  void aLayoutFileThatCannotBeReadIsNamedWithWhereTheSettingCameFrom() {
    FakeFiles files = new FakeFiles(Map.of(CONFIG, "sweep.layout=s3a://statesweep-conf/nope.json\n"));
    Settings settings = Settings.resolve(Map.of("--bucket", "b", "--prefix", "p"), Map.of(), CONFIG, files);

    assertThatThrownBy(() -> RunOptions.from(settings, files))
        .hasMessage("Layout file s3a://statesweep-conf/nope.json does not exist (sweep.layout from " + CONFIG
            + ": sweep.layout)");
    assertThatThrownBy(() -> RunOptions.from(Settings.resolve(Map.of("--bucket", "b", "--prefix", "p", "--layout",
        "dbfs:/forbidden/layout.json"), Map.of(), null, files), files))
        .hasMessage("Cannot read layout file dbfs:/forbidden/layout.json: dbfs:/forbidden/layout.json: 403 Forbidden"
            + " (sweep.layout from --layout)");
  }

  @Test
  void theLocalSourceReadsAPathAndRefusesAFileLargerThanAsked(@TempDir Path dir) throws IOException {
    Path file = Files.writeString(dir.resolve("x.properties"), "sweep.bucket=b\n");

    assertThat(FileSource.LOCAL.read(file.toString(), 100)).isEqualTo("sweep.bucket=b\n".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> FileSource.LOCAL.read(file.toString(), 5)).hasMessage("larger than 5 bytes");
    assertThatThrownBy(() -> Settings.resolve(Map.of(), Map.of(), dir.resolve("nope.properties")))
        .hasMessage("Cannot read --config-file " + dir.resolve("nope.properties") + ": no such file");
  }
}
