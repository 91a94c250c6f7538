package io.statesweep.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.apache.logging.log4j.message.SimpleMessage;
import org.junit.jupiter.api.Test;

/**
 * The logging of {@code conf/log4j2.properties} writes every event as one line, whatever its message or its
 * exception's messages hold (another library's message naming a key, a task failure's stack trace): a line break
 * in them prints as {@code \n}, so no key can start a line of stderr either.
 */
class LogConfigurationTest {
  private static final Path CONFIGURATION = Path.of("..", "conf", "log4j2.properties");

  @Test
  void everyEventIsOneLineWhateverItsMessageAndStackTraceHold() throws IOException {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(CONFIGURATION, StandardCharsets.UTF_8)) {
      properties.load(reader);
    }
    PatternLayout layout = PatternLayout.newBuilder()
        .withPattern(properties.getProperty("appender.console.layout.pattern")).build();
    IllegalStateException failure = new IllegalStateException("Cannot delete cogram/a\nsummary: dry_run=false",
        new RuntimeException("cogram/b\r\nrefused to delete FORGED.pdf"));
    LogEvent event = Log4jLogEvent.newBuilder().setLoggerName("org.apache.spark.scheduler.TaskSetManager")
        .setLevel(Level.WARN).setMessage(new SimpleMessage("Lost task 0.0: cogram/c\nthe record is coming back"))
        .setThrown(failure).build();

    String text = layout.toSerializable(event);

    assertThat(text).endsWith(System.lineSeparator());
    String line = text.substring(0, text.length() - System.lineSeparator().length());
    assertThat(line).doesNotContain("\n", "\r")
        .contains("WARN  TaskSetManager: Lost task 0.0: cogram/c\\nthe record is coming back")
        .contains("java.lang.IllegalStateException: Cannot delete cogram/a\\nsummary: dry_run=false")
        .contains("Caused by: java.lang.RuntimeException: cogram/b\\r\\nrefused to delete FORGED.pdf")
        .contains("\tat io.statesweep.jobs.LogConfigurationTest.everyEventIsOneLine");
  }
}
