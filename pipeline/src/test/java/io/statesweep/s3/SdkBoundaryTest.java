package io.statesweep.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.statesweep.testing.ProjectSources;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * "Only {@code s3/} calls the AWS SDK" (pipeline/README.md, "How it is tested"): in the product's sources (the
 * pipeline's and the jobs' {@code src/main}), no file outside {@code io/statesweep/s3/} names a
 * {@code software.amazon.awssdk} type, by import or fully qualified. Test code (the local S3 server, the
 * fakes) may.
 */
class SdkBoundaryTest {
  private static final String SDK = "software.amazon.awssdk";
  private static final List<Path> PRODUCT_SOURCES = ProjectSources.PRODUCT;
  private static final Path S3_PACKAGE = Path.of("io", "statesweep", "s3");

  @Test
  void onlyTheS3PackageOfTheProductNamesTheAwsSdk() {
    List<Path> sources = ProjectSources.javaFiles(PRODUCT_SOURCES);
    // The scan sees the product: both modules' sources, the SDK's own users among them.
    assertThat(sources).anyMatch(path -> path.endsWith(S3_PACKAGE.resolve("S3Clients.java")))
        .anyMatch(path -> path.toString().contains("/jobs/src/main/java/"));

    List<String> outside = sources.stream()
        .filter(path -> !sourceRoot(path).relativize(path).startsWith(S3_PACKAGE))
        .filter(SdkBoundaryTest::namesTheSdk)
        .map(path -> ProjectSources.ROOT.relativize(path).toString())
        .toList();

    assertThat(outside).as("product sources outside io/statesweep/s3/ that use the AWS SDK (%s); move the calls"
        + " into io.statesweep.s3 and speak in statesweep's own types elsewhere", SDK).isEmpty();
  }

  @Test
  void aFileOutsideTheS3PackageThatImportsTheSdkIsNamed() {
    assertThat(namesTheSdk("package io.statesweep.spark;\n\nimport software.amazon.awssdk.services.s3.S3Client;\n"))
        .isTrue();
    assertThat(namesTheSdk("class A { software.amazon.awssdk.regions.Region region; }")).isTrue();
    assertThat(namesTheSdk("package io.statesweep.spark;\n\nimport io.statesweep.store.ObjectStore;\n")).isFalse();
  }

  private static Path sourceRoot(Path file) {
    return PRODUCT_SOURCES.stream().filter(file::startsWith).findFirst().orElseThrow();
  }

  private static boolean namesTheSdk(Path file) {
    return namesTheSdk(ProjectSources.read(file));
  }

  private static boolean namesTheSdk(String source) {
    return source.contains(SDK);
  }
}
