package io.statesweep.cost;

import static java.util.Objects.requireNonNull;

import io.statesweep.api.failures.BadSettingsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A price table ({@code conf/prices/aws.json}, or a file given with {@code --prices}): per region, the
 * price of 1,000 requests by request class and the price of a GB-month by storage class; which class
 * each S3 operation is billed in; each storage class's minimum storage duration. Validated when parsed,
 * with messages that name the file and the field. Money is {@link BigDecimal}, never a float.
 *
 * @param origin where the table came from ({@code aws (built in)}, or the file), for messages and the runs table
 * @param checked the date the prices were checked, as the file says
 */
public record PriceTable(String name, String origin, String currency, String checked, String source,
    Map<String, String> requestClasses, String defaultRequestClass, String defaultStorageClass,
    Map<String, Integer> minimumDays, Map<String, RegionPrices> regions) implements Serializable {

  /** The setting's value that names the table shipped in the jar. */
  public static final String BUILT_IN = "aws";
  private static final String RESOURCE = "prices/aws.json";
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  public PriceTable {
    requireNonNull(name, "name is null");
    requireNonNull(origin, "origin is null");
    requestClasses = Map.copyOf(requestClasses);
    minimumDays = Map.copyOf(minimumDays);
    regions = java.util.Collections.unmodifiableMap(new TreeMap<>(regions));
  }

  /** The prices of one region: requests per 1,000 by class, storage per GB-month by storage class. */
  public record RegionPrices(String region, Map<String, BigDecimal> requestsPer1000,
      Map<String, BigDecimal> storagePerGbMonth) implements Serializable {
    public RegionPrices {
      requireNonNull(region, "region is null");
      requestsPer1000 = Map.copyOf(requestsPer1000);
      storagePerGbMonth = Map.copyOf(storagePerGbMonth);
    }
  }

  /** The table shipped in the jar, from {@code conf/prices/aws.json}. */
  public static PriceTable builtIn() {
    try (InputStream in = PriceTable.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("The built-in price table " + RESOURCE + " is not on the class path");
      }
      return parse(in.readAllBytes(), BUILT_IN + " (built in, conf/prices/aws.json)");
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the built-in price table " + RESOURCE + ": " + e.getMessage(), e);
    }
  }

  /** Parses a price table; {@code origin} names it in messages. */
  public static PriceTable parse(byte[] json, String origin) {
    requireNonNull(origin, "origin is null");
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new BadSettingsException("Invalid price table " + origin + ": not JSON: "
          + (e instanceof com.fasterxml.jackson.core.JsonProcessingException parse ? parse.getOriginalMessage() : e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      throw new BadSettingsException("Invalid price table " + origin + ": not a JSON object");
    }
    String name = text(root, "name", origin);
    String currency = text(root, "currency", origin);
    if (!currency.equals("USD")) {
      throw new BadSettingsException("Invalid price table " + origin + ": field currency is " + currency
          + "; only USD is supported");
    }
    Map<String, String> requestClasses = new LinkedHashMap<>();
    fields(object(root, "request_classes", origin)).forEach((operation, value) -> {
      if (!value.isTextual()) {
        throw new BadSettingsException("Invalid price table " + origin + ": field request_classes." + operation
            + " is not a string");
      }
      requestClasses.put(operation, value.asText());
    });
    String defaultRequestClass = text(root, "default_request_class", origin);
    String defaultStorageClass = text(root, "default_storage_class", origin);
    Map<String, Integer> minimumDays = new LinkedHashMap<>();
    if (root.has("minimum_days")) {
      fields(object(root, "minimum_days", origin)).forEach((storageClass, value) -> {
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < 0) {
          throw new BadSettingsException("Invalid price table " + origin + ": field minimum_days." + storageClass
              + " is not a whole number of days");
        }
        minimumDays.put(storageClass, value.asInt());
      });
    }
    Map<String, RegionPrices> regions = new LinkedHashMap<>();
    fields(object(root, "regions", origin)).forEach((region, prices) -> {
      String field = "regions." + region;
      if (!prices.isObject()) {
        throw new BadSettingsException("Invalid price table " + origin + ": field " + field + " is not an object");
      }
      Map<String, BigDecimal> requests = money(object(prices, "requests_per_1000", origin, field), origin,
          field + ".requests_per_1000");
      Map<String, BigDecimal> storage = money(object(prices, "storage_per_gb_month", origin, field), origin,
          field + ".storage_per_gb_month");
      java.util.Set<String> classes = new java.util.TreeSet<>(requestClasses.values());
      classes.add(defaultRequestClass);
      for (String requestClass : classes) {
        if (!requests.containsKey(requestClass)) {
          throw new BadSettingsException("Invalid price table " + origin + ": field " + field
              + ".requests_per_1000 has no price for request class " + requestClass);
        }
      }
      if (!storage.containsKey(defaultStorageClass)) {
        throw new BadSettingsException("Invalid price table " + origin + ": field " + field
            + ".storage_per_gb_month has no price for the default storage class " + defaultStorageClass);
      }
      regions.put(region, new RegionPrices(region, requests, storage));
    });
    if (regions.isEmpty()) {
      throw new BadSettingsException("Invalid price table " + origin + ": field regions is empty");
    }
    String checked = root.path("checked").asText("");
    String source = root.path("source").asText("");
    return new PriceTable(name, origin, currency, checked, source, requestClasses, defaultRequestClass,
        defaultStorageClass, minimumDays, regions);
  }

  /** The prices of {@code region}; refused, naming the regions the table has, when it has none. */
  public RegionPrices region(String region) {
    RegionPrices prices = regions.get(requireNonNull(region, "region is null"));
    if (prices == null) {
      throw new BadSettingsException("Price table " + origin + " has no prices for region " + region
          + "; its regions are " + String.join(", ", regions.keySet()) + ". Give --prices with a file that has it");
    }
    return prices;
  }

  /** The request class an S3 operation is billed in, such as tier1 for ListObjectsV2. */
  public String requestClass(String operation) {
    return requestClasses.getOrDefault(operation, defaultRequestClass);
  }

  /** A storage class as priced: a class the table does not price is priced as the default class. */
  public String pricedStorageClass(RegionPrices prices, String storageClass) {
    return storageClass != null && prices.storagePerGbMonth().containsKey(storageClass) ? storageClass
        : defaultStorageClass;
  }

  /** The minimum storage duration of a storage class, days (0 when it has none). */
  public int minimumDays(String storageClass) {
    return storageClass == null ? 0 : minimumDays.getOrDefault(storageClass, 0);
  }

  private static String text(JsonNode node, String field, String origin) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual() || value.asText().isBlank()) {
      throw new BadSettingsException("Invalid price table " + origin + ": field " + field
          + " is missing or not a string");
    }
    return value.asText();
  }

  private static JsonNode object(JsonNode node, String field, String origin) {
    return object(node, field, origin, null);
  }

  private static JsonNode object(JsonNode node, String field, String origin, String parent) {
    JsonNode value = node.get(field);
    String path = parent == null ? field : parent + "." + field;
    if (value == null || !value.isObject()) {
      throw new BadSettingsException("Invalid price table " + origin + ": field " + path
          + " is missing or not an object");
    }
    return value;
  }

  private static Map<String, JsonNode> fields(JsonNode object) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> entry = it.next();
      fields.put(entry.getKey(), entry.getValue());
    }
    return fields;
  }

  private static Map<String, BigDecimal> money(JsonNode object, String origin, String field) {
    Map<String, BigDecimal> prices = new LinkedHashMap<>();
    fields(object).forEach((name, value) -> {
      if (!value.isNumber() || value.decimalValue().signum() < 0) {
        throw new BadSettingsException("Invalid price table " + origin + ": field " + field + "." + name
            + " is not a price (a number of dollars, 0 or more)");
      }
      prices.put(name, value.decimalValue());
    });
    return prices;
  }

  /** The regions the table prices, sorted. */
  public List<String> regionNames() {
    return List.copyOf(regions.keySet());
  }
}
