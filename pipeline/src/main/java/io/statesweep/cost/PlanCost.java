package io.statesweep.cost;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a plan cost and what executing it will cost and save, at one region's list prices. Dollar
 * amounts are null when the price table has no prices for the region (the counts stay).
 *
 * @param region the region priced
 * @param regionFrom how it was chosen: {@code --region}, the SDK's default, or the client's default with an endpoint
 * @param prices the price table's origin and the date its prices were checked
 * @param requests the requests the plan made, by S3 operation (HTTP requests sent, retries included)
 * @param executeRequests the requests its execute will make, estimated ({@code ExecuteRequestEstimate})
 * @param bytesByStorageClass the bytes the plan deletes, by the storage class the listing gave
 * @param byteDaysLeftByStorageClass for each class, the sum over its keys of size x days of the class's minimum
 *     storage duration left at the plan's time
 * @param bucketVersioning Enabled, Suspended, Off or unknown
 * @param versioningNote the statement about noncurrent versions, or null on a bucket that is not versioned
 * @param noncurrentVersions for a plan: the noncurrent versions already under the prefix as its listing counted them,
 *     or why it did not; null for an execute attempt
 */
public record PlanCost(String region, String regionFrom, String prices, Map<String, Long> requests,
    Map<String, Long> executeRequests, Map<String, Long> bytesByStorageClass,
    Map<String, BigDecimal> byteDaysLeftByStorageClass, String bucketVersioning, String versioningNote,
    BigDecimal costUsd, BigDecimal executeCostUsd, BigDecimal savesUsdPerMonth, BigDecimal earlyDeleteUsd,
    NoncurrentVersions noncurrentVersions) {

  /** The value of a dollar pair when the region has no prices. */
  public static final String UNPRICED = "n/a";

  public PlanCost {
    requireNonNull(region, "region is null");
    requests = java.util.Collections.unmodifiableMap(new TreeMap<>(requests));
    executeRequests = java.util.Collections.unmodifiableMap(new TreeMap<>(executeRequests));
    bytesByStorageClass = java.util.Collections.unmodifiableMap(new TreeMap<>(bytesByStorageClass));
    byteDaysLeftByStorageClass = java.util.Collections.unmodifiableMap(new TreeMap<>(byteDaysLeftByStorageClass));
    requireNonNull(bucketVersioning, "bucketVersioning is null");
  }

  /** Prices the counts at {@code table}'s prices for {@code region}, or leaves the dollars null when it has none. */
  public static PlanCost priced(PriceTable table, String region, String regionFrom, Map<String, Long> requests,
      Map<String, Long> executeRequests, Map<String, Long> bytesByStorageClass,
      Map<String, BigDecimal> byteDaysLeftByStorageClass, String bucketVersioning, String versioningNote) {
    return priced(table, region, regionFrom, requests, executeRequests, bytesByStorageClass, byteDaysLeftByStorageClass,
        bucketVersioning, versioningNote, null);
  }

  /** {@link #priced(PriceTable, String, String, Map, Map, Map, Map, String, String)} with the noncurrent versions. */
  public static PlanCost priced(PriceTable table, String region, String regionFrom, Map<String, Long> requests,
      Map<String, Long> executeRequests, Map<String, Long> bytesByStorageClass,
      Map<String, BigDecimal> byteDaysLeftByStorageClass, String bucketVersioning, String versioningNote,
      NoncurrentVersions noncurrentVersions) {
    String prices = table.origin() + (table.checked().isEmpty() ? "" : ", checked " + table.checked());
    PriceTable.RegionPrices regionPrices = table.regions().get(region);
    if (regionPrices == null) {
      return new PlanCost(region, regionFrom, prices, requests, executeRequests, bytesByStorageClass,
          byteDaysLeftByStorageClass, bucketVersioning, versioningNote, null, null, null, null, noncurrentVersions);
    }
    return new PlanCost(region, regionFrom, prices, requests, executeRequests, bytesByStorageClass,
        byteDaysLeftByStorageClass, bucketVersioning, versioningNote,
        Costs.requests(table, regionPrices, requests),
        Costs.requests(table, regionPrices, executeRequests),
        Costs.storagePerMonth(table, regionPrices, bytesByStorageClass),
        Costs.earlyDeletion(table, regionPrices, byteDaysLeftByStorageClass), noncurrentVersions);
  }

  /**
   * What an execute attempt cost: its requests priced, the plan's own figures left empty (the runs table
   * leaves their columns null for an attempt).
   */
  public static PlanCost ofAttempt(PriceTable table, String region, String regionFrom, Map<String, Long> requests) {
    PlanCost priced = priced(table, region, regionFrom, requests, Map.of(), Map.of(), Map.of(), "unknown", null);
    return new PlanCost(region, regionFrom, priced.prices(), requests, Map.of(), Map.of(), Map.of(), "unknown", null,
        priced.costUsd(), null, null, null, null);
  }

  /**
   * The pairs an execute attempt's summary line ends with: {@code requests=}, {@code cost_usd=} and
   * {@code price_region=}, as in {@link #summaryPairs()}.
   */
  public Map<String, String> attemptPairs() {
    Map<String, String> pairs = new LinkedHashMap<>();
    pairs.put("requests", Long.toString(requestCount()));
    pairs.put("cost_usd", dollars(costUsd));
    pairs.put("price_region", region);
    return pairs;
  }

  /** Whether the region had prices. */
  public boolean isPriced() {
    return costUsd != null;
  }

  public long requestCount() {
    return requests.values().stream().mapToLong(Long::longValue).sum();
  }

  public long executeRequestCount() {
    return executeRequests.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * The summary line's pairs, in this order (a contract: names and formats do not change): {@code requests=}
   * (requests sent), {@code cost_usd=}, {@code execute_requests=} (estimated), {@code execute_cost_usd=},
   * {@code saves_usd_per_month=}, {@code early_delete_usd=}, {@code price_region=} and {@code bucket_versioning=}.
   * Dollars have six decimal places ({@code 0.000412}), or are {@value #UNPRICED} when the region has no prices.
   */
  public Map<String, String> summaryPairs() {
    Map<String, String> pairs = new LinkedHashMap<>();
    pairs.put("requests", Long.toString(requestCount()));
    pairs.put("cost_usd", dollars(costUsd));
    pairs.put("execute_requests", Long.toString(executeRequestCount()));
    pairs.put("execute_cost_usd", dollars(executeCostUsd));
    pairs.put("saves_usd_per_month", dollars(savesUsdPerMonth));
    pairs.put("early_delete_usd", dollars(earlyDeleteUsd));
    pairs.put("price_region", region);
    pairs.put("bucket_versioning", bucketVersioning);
    return pairs;
  }

  /** One line for the log: what the plan cost, what its execute will cost, what it saves. */
  public String describe() {
    return "requests " + requests + " cost $" + dollars(costUsd) + "; its execute will make about " + executeRequests
        + " (an estimate), $" + dollars(executeCostUsd) + "; it frees " + bytesByStorageClass
        + " bytes by storage class, saving $" + dollars(savesUsdPerMonth) + " a month (minimum-duration charges $"
        + dollars(earlyDeleteUsd) + "); prices of " + region + " (" + regionFrom + ") from " + prices;
  }

  private static String dollars(BigDecimal usd) {
    return usd == null ? UNPRICED : Costs.format(usd);
  }
}
