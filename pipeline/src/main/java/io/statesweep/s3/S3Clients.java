package io.statesweep.s3;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One S3 client per settings per JVM (driver or executor), built once and reused by every task, and
 * closed when the JVM exits.
 */
public final class S3Clients {
  private static final Map<S3Settings, S3Client> CLIENTS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(S3Clients::closeAll, "statesweep-s3-clients-close"));
  }

  private S3Clients() {}

  public static S3Client shared(S3Settings settings) {
    return CLIENTS.computeIfAbsent(settings, S3Clients::build);
  }

  /**
   * The region the shared client of {@code settings} signs for: {@code --region}, else the SDK's default
   * region (environment, profile, instance metadata), else us-east-1 where an endpoint is set.
   */
  public static String region(S3Settings settings) {
    return shared(settings).serviceClientConfiguration().region().id();
  }

  /** A client that the caller owns and closes. */
  public static S3Client build(S3Settings settings) {
    RetryStrategy retryStrategy = AwsRetryStrategy.standardRetryStrategy().toBuilder()
        .maxAttempts(settings.maxAttempts())
        // A connection reset while the SDK reads an answer's body (a LIST page half parsed) surfaces from
        // the unmarshaller wrapped twice, and the standard strategy does not retry it. Every operation
        // here is safe to repeat: reads, conditional writes (whose lost answers RunLock recognises),
        // and deletes (a key already gone counts as deleted).
        .retryOnExceptionOrCauseInstanceOf(java.io.IOException.class)
        .retryOnRootCauseInstanceOf(java.io.IOException.class)
        .build();
    var builder = S3Client.builder()
        .credentialsProvider(DefaultCredentialsProvider.builder().build())
        .httpClientBuilder(ApacheHttpClient.builder().maxConnections(settings.maxConnections()))
        .overrideConfiguration(ClientOverrideConfiguration.builder()
            .retryStrategy(retryStrategy)
            .apiCallTimeout(settings.apiCallTimeout())
            .apiCallAttemptTimeout(settings.apiCallAttemptTimeout())
            .addExecutionInterceptor(new RequestCounts.Interceptor())
            .build())
        // Checksums only where S3 requires them (DeleteObjects): S3-compatible stores vary in support.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .forcePathStyle(settings.pathStyle());
    if (settings.endpoint() != null) {
      builder.endpointOverride(URI.create(settings.endpoint()));
    }
    if (settings.region() != null) {
      builder.region(Region.of(settings.region()));
    } else if (settings.endpoint() != null) {
      builder.region(Region.US_EAST_1);
    }
    return builder.build();
  }

  static void closeAll() {
    CLIENTS.values().forEach(S3Client::close);
    CLIENTS.clear();
  }
}
