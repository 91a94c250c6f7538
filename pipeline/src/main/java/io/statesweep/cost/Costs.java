package io.statesweep.cost;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * The arithmetic of a run's cost, in plain Java and {@link BigDecimal} dollars: requests at their
 * class's price per 1,000, storage at its class's price per GB-month (1 GB = 2^30 bytes, as S3 bills),
 * and the minimum-duration charge of keys deleted early. Amounts keep full precision; {@link #format}
 * rounds them for the summary line.
 */
public final class Costs {
  /** Bytes in a GB as S3 bills storage. */
  static final BigDecimal BYTES_PER_GB = BigDecimal.valueOf(1L << 30);
  private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
  /** S3 prorates a minimum-duration charge by day; a month is taken as 30 days. */
  private static final BigDecimal DAYS_PER_MONTH = BigDecimal.valueOf(30);
  /** Decimal places kept while dividing (far below a millionth of a cent). */
  private static final int WORKING_SCALE = 18;
  /** Decimal places in the summary line and the tables: millionths of a dollar. */
  public static final int SCALE = 6;

  private Costs() {}

  /** The price of {@code requestsByOperation} (S3 operation name, such as GetObject, to requests). */
  public static BigDecimal requests(PriceTable table, PriceTable.RegionPrices prices,
      Map<String, Long> requestsByOperation) {
    requireNonNull(table, "table is null");
    requireNonNull(prices, "prices is null");
    BigDecimal total = BigDecimal.ZERO;
    for (Map.Entry<String, Long> operation : requestsByOperation.entrySet()) {
      BigDecimal per1000 = prices.requestsPer1000().get(table.requestClass(operation.getKey()));
      total = total.add(per1000.multiply(BigDecimal.valueOf(operation.getValue())));
    }
    return total.divide(THOUSAND, WORKING_SCALE, RoundingMode.HALF_UP).stripTrailingZeros();
  }

  /** What {@code bytesByStorageClass} costs a month; a class the table does not price is priced as its default. */
  public static BigDecimal storagePerMonth(PriceTable table, PriceTable.RegionPrices prices,
      Map<String, Long> bytesByStorageClass) {
    Map<String, BigDecimal> bytes = new java.util.LinkedHashMap<>();
    bytesByStorageClass.forEach((storageClass, stored) -> bytes.put(storageClass, BigDecimal.valueOf(stored)));
    return perGbMonthTimes(table, prices, bytes).divide(BYTES_PER_GB, WORKING_SCALE, RoundingMode.HALF_UP)
        .stripTrailingZeros();
  }

  /**
   * The minimum-duration charge of deleting keys early: for each storage class, the sum over its keys of
   * size x days left of the class's minimum (byte-days), charged as storage for those days.
   */
  public static BigDecimal earlyDeletion(PriceTable table, PriceTable.RegionPrices prices,
      Map<String, BigDecimal> byteDaysLeftByStorageClass) {
    return perGbMonthTimes(table, prices, byteDaysLeftByStorageClass)
        .divide(BYTES_PER_GB.multiply(DAYS_PER_MONTH), WORKING_SCALE, RoundingMode.HALF_UP).stripTrailingZeros();
  }

  /**
   * The sum over storage classes of the class's price per GB-month times {@code amounts} (bytes, or byte-days), a
   * class the table does not price priced as its default: what the storage prices divide into dollars.
   */
  private static BigDecimal perGbMonthTimes(PriceTable table, PriceTable.RegionPrices prices,
      Map<String, BigDecimal> amounts) {
    BigDecimal total = BigDecimal.ZERO;
    for (Map.Entry<String, BigDecimal> amount : amounts.entrySet()) {
      BigDecimal perGbMonth = prices.storagePerGbMonth().get(table.pricedStorageClass(prices, amount.getKey()));
      total = total.add(perGbMonth.multiply(amount.getValue()));
    }
    return total;
  }

  /**
   * Days of a class's minimum storage duration left when a key written at {@code writtenAt} is deleted at
   * {@code deletedAt}: whole days stored are counted, as S3 counts them; 0 once the minimum has passed.
   */
  public static long daysLeft(int minimumDays, java.time.Instant writtenAt, java.time.Instant deletedAt) {
    long stored = Math.max(0, java.time.Duration.between(writtenAt, deletedAt).toDays());
    return Math.max(0, minimumDays - stored);
  }

  /** Dollars as the summary line and the tables show them: {@value #SCALE} decimal places, half up. */
  public static BigDecimal rounded(BigDecimal usd) {
    return usd.setScale(SCALE, RoundingMode.HALF_UP);
  }

  /** {@link #rounded}, as plain text (never an exponent): {@code 0.000412}. */
  public static String format(BigDecimal usd) {
    return rounded(usd).toPlainString();
  }
}
