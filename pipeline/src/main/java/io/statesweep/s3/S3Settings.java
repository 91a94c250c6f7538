package io.statesweep.s3;

import java.io.Serializable;
import java.time.Duration;

/**
 * How to reach the bucket. Credentials are never here: the SDK's default provider chain finds them
 * (environment, system properties, profile, container or instance role).
 *
 * @param endpoint an endpoint URI for S3-compatible stores, or null for AWS
 * @param region the bucket's region, or null for the SDK's default (us-east-1 when an endpoint is set)
 * @param pathStyle path-style addressing, which most non-AWS stores need
 * @param maxConnections HTTP connections per JVM
 * @param maxAttempts attempts per request, retries with backoff included (503 SlowDown among them)
 * @param apiCallTimeout the whole call, retries included
 * @param apiCallAttemptTimeout one attempt
 */
public record S3Settings(
    String endpoint,
    String region,
    boolean pathStyle,
    int maxConnections,
    int maxAttempts,
    Duration apiCallTimeout,
    Duration apiCallAttemptTimeout) implements Serializable {

  public S3Settings {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    if (apiCallTimeout == null || apiCallTimeout.isNegative() || apiCallTimeout.isZero()) {
      throw new IllegalArgumentException("apiCallTimeout must be positive");
    }
    if (apiCallAttemptTimeout == null || apiCallAttemptTimeout.isNegative() || apiCallAttemptTimeout.isZero()) {
      throw new IllegalArgumentException("apiCallAttemptTimeout must be positive");
    }
  }

  /** AWS in the SDK's default region, 64 connections, 10 attempts, 5 min per call, 60 s per attempt. */
  public static S3Settings defaults() {
    return new S3Settings(null, null, false, 64, 10, Duration.ofMinutes(5), Duration.ofSeconds(60));
  }

  public S3Settings withEndpoint(String newEndpoint, boolean newPathStyle) {
    return new S3Settings(newEndpoint, region, newPathStyle, maxConnections, maxAttempts, apiCallTimeout,
        apiCallAttemptTimeout);
  }

  public S3Settings withRegion(String newRegion) {
    return new S3Settings(endpoint, newRegion, pathStyle, maxConnections, maxAttempts, apiCallTimeout,
        apiCallAttemptTimeout);
  }

  public S3Settings withMaxConnections(int newMaxConnections) {
    return new S3Settings(endpoint, region, pathStyle, newMaxConnections, maxAttempts, apiCallTimeout,
        apiCallAttemptTimeout);
  }
}
