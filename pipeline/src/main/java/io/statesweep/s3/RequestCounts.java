package io.statesweep.s3;

import java.io.Serializable;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * The S3 requests one {@link S3ObjectStore} made, by operation: calls, HTTP attempts (retries are
 * attempts beyond the calls), throttled answers (503 SlowDown, 429) and failed calls. Every request of
 * the store carries its counter as an execution attribute; {@link Interceptor}, registered on every
 * client, counts into it. Thread-safe.
 */
public final class RequestCounts {
  /** Kinds of count, the keys' suffixes in {@link #snapshot()}. */
  public static final String CALLS = "calls";
  public static final String ATTEMPTS = "attempts";
  public static final String THROTTLED = "throttled";
  public static final String FAILED = "failed";

  static final ExecutionAttribute<RequestCounts> ATTRIBUTE = new ExecutionAttribute<>("statesweep.requestCounts");
  /** Throttled answers to one call, its retries' included: a call that wants its own count carries one. */
  static final ExecutionAttribute<java.util.concurrent.atomic.AtomicInteger> CALL_THROTTLED =
      new ExecutionAttribute<>("statesweep.callThrottled");

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  void add(String operation, String kind) {
    counts.computeIfAbsent(operation + "." + kind, k -> new LongAdder()).increment();
  }

  /** Counts by {@code <Operation>.<kind>}, such as {@code GetObject.calls}, sorted. */
  public Map<String, Long> snapshot() {
    Map<String, Long> snapshot = new TreeMap<>();
    counts.forEach((key, adder) -> snapshot.put(key, adder.sum()));
    return snapshot;
  }

  /** The calls by operation, such as {@code GetObject}, sorted (operations never called left out). */
  public Map<String, Long> calls() {
    Map<String, Long> calls = new TreeMap<>();
    String suffix = "." + CALLS;
    snapshot().forEach((key, count) -> {
      if (key.endsWith(suffix) && count > 0) {
        calls.put(key.substring(0, key.length() - suffix.length()), count);
      }
    });
    return calls;
  }

  /** Counts into the request's {@link RequestCounts}, when it carries one. */
  static final class Interceptor implements ExecutionInterceptor, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      count(attributes, CALLS);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      count(attributes, ATTEMPTS);
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
      int status = context.httpResponse().statusCode();
      if (status == 503 || status == 429) {
        count(attributes, THROTTLED);
        java.util.concurrent.atomic.AtomicInteger call = attributes.getAttribute(CALL_THROTTLED);
        if (call != null) {
          call.incrementAndGet();
        }
      }
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
      count(attributes, FAILED);
    }

    private static void count(ExecutionAttributes attributes, String kind) {
      RequestCounts counts = attributes.getAttribute(ATTRIBUTE);
      String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
      if (counts != null && operation != null) {
        counts.add(operation, kind);
      }
    }
  }
}
