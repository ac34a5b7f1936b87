package io.mdfanout.feed.support;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes ITCH test messages byte by byte at offsets the test states (the ITCH50.md layouts),
 * big-endian: deliberately not the production decoder's constants, so a wrong offset there fails.
 */
public final class ItchBytes
{
    private final byte[] bytes;

    public ItchBytes(final int length, final char type, final int locate, final int tracking, final long timestamp)
    {
        bytes = new byte[length];
        bytes[0] = (byte)type;
        u16(1, locate);
        u16(3, tracking);
        u48(5, timestamp);
    }

    public ItchBytes u8(final int offset, final int value)
    {
        bytes[offset] = (byte)value;
        return this;
    }

    public ItchBytes ch(final int offset, final char value)
    {
        bytes[offset] = (byte)value;
        return this;
    }

    public ItchBytes u16(final int offset, final int value)
    {
        return be(offset, value, 2);
    }

    public ItchBytes u32(final int offset, final long value)
    {
        return be(offset, value, 4);
    }

    public ItchBytes u48(final int offset, final long value)
    {
        return be(offset, value, 6);
    }

    public ItchBytes u64(final int offset, final long value)
    {
        return be(offset, value, 8);
    }

    /** ASCII, left-justified, space-padded to {@code length}. */
    public ItchBytes alpha(final int offset, final int length, final String text)
    {
        final byte[] ascii = text.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < length; i++)
        {
            bytes[offset + i] = i < ascii.length ? ascii[i] : (byte)' ';
        }
        return this;
    }

    private ItchBytes be(final int offset, final long value, final int width)
    {
        for (int i = 0; i < width; i++)
        {
            bytes[offset + i] = (byte)(value >>> (8 * (width - 1 - i)));
        }
        return this;
    }

    public byte[] bytes()
    {
        return bytes.clone();
    }

    /** A copy extended with {@code extra} trailing bytes (fields a later spec version may append). */
    public byte[] bytesWithExtra(final int extra)
    {
        return Arrays.copyOf(bytes, bytes.length + extra);
    }

    public int length()
    {
        return bytes.length;
    }
}
