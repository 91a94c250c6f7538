package io.statesweep.synthetic;

import java.io.Serializable;

/**
 * A count of keys and an order-independent digest of them (the sum, modulo 2^64, of a 64-bit hash of each key), so
 * that two sets of millions of keys can be compared without holding either: the synthetic server's deleted keys
 * against the keys a run recorded deleted. Equal sets give equal digests; a key more, less or other changes the
 * count or (but for a 2^-64 chance) the sum.
 */
public final class KeyDigest implements Serializable {
  private static final long serialVersionUID = 1L;

  private long keys;
  private long sum;

  public KeyDigest() {}

  private KeyDigest(long keys, long sum) {
    this.keys = keys;
    this.sum = sum;
  }

  /** Counts {@code key} in; returns this. */
  public KeyDigest add(String key) {
    keys++;
    sum += hash(key);
    return this;
  }

  /** Counts {@code other}'s keys in; returns this. */
  public KeyDigest merge(KeyDigest other) {
    keys += other.keys;
    sum += other.sum;
    return this;
  }

  public long keys() {
    return keys;
  }

  /** {@code keys=N sum=<16 hex digits>}, as {@link #parse} reads it. */
  @Override
  public String toString() {
    return "keys=" + keys + " sum=" + String.format("%016x", sum);
  }

  /** The digest that {@link #toString} printed. */
  public static KeyDigest parse(String text) {
    long keys = 0;
    long sum = 0;
    for (String pair : text.trim().split(" ")) {
      if (pair.startsWith("keys=")) {
        keys = Long.parseLong(pair.substring("keys=".length()));
      } else if (pair.startsWith("sum=")) {
        sum = Long.parseUnsignedLong(pair.substring("sum=".length()), 16);
      }
    }
    return new KeyDigest(keys, sum);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof KeyDigest digest && digest.keys == keys && digest.sum == sum;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(keys * 31 + sum);
  }

  /** FNV-1a over the key's chars, then MurmurHash3's 64-bit finalizer to spread the bits. */
  static long hash(String key) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      h ^= key.charAt(i);
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb53fe1a85ec3L;
    return h ^ (h >>> 33);
  }
}
