package io.mdfanout.tools.dbn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.List;

/**
 * Encodes the DBN version 3 metadata header, byte for byte as {@code MetadataEncoder::encode} of Databento's
 * {@code dbn} crate does: {@code "DBN"}, the version, the length of what follows, the fixed part (dataset, schema,
 * start, end, limit, stype_in, stype_out, ts_out, symbol_cstr_len, reserved), then the repeated parts (schema
 * definition length 0, symbols, partial, not_found, mappings), padded to a multiple of 8 bytes (version 3).
 */
final class DbnMetadata
{
    /** One symbol mapping: a raw symbol and the instrument id it maps to on the session date. */
    static final class Mapping
    {
        final String rawSymbol;
        final long instrumentId;

        Mapping(final String rawSymbol, final long instrumentId)
        {
            this.rawSymbol = rawSymbol;
            this.instrumentId = instrumentId;
        }
    }

    private DbnMetadata()
    {
    }

    /**
     * Encodes the metadata.
     *
     * @param dataset     the dataset.
     * @param schema      the schema, {@link Dbn#NULL_SCHEMA} for mixed records.
     * @param start       start of the data, epoch ns.
     * @param end         end of the data (exclusive), epoch ns, or {@link Dbn#UNDEF_TIMESTAMP}.
     * @param sessionDate the date the mappings hold on (one interval, [date, date + 1)).
     * @param mappings    raw symbol to instrument id, in the order written; the symbols list is their raw symbols.
     * @return the encoded metadata, position 0, limit its length.
     */
    static ByteBuffer encode(
        final String dataset,
        final int schema,
        final long start,
        final long end,
        final LocalDate sessionDate,
        final List<Mapping> mappings)
    {
        final int cstr = Dbn.SYMBOL_CSTR_LEN;
        final int mappingLength = cstr + 4 + (4 + 4 + cstr);
        final int neededLength = Dbn.METADATA_FIXED_LEN + 5 * 4 + mappings.size() * cstr + mappings.size() * mappingLength;
        final int padding = (8 - (neededLength % 8)) % 8;
        final int length = neededLength + padding;

        final ByteBuffer buffer = ByteBuffer.allocate(8 + length).order(ByteOrder.LITTLE_ENDIAN);
        buffer.put((byte)'D').put((byte)'B').put((byte)'N').put((byte)Dbn.VERSION);
        buffer.putInt(length);
        putCString(buffer, dataset, Dbn.DATASET_CSTR_LEN);
        buffer.putShort((short)schema);
        buffer.putLong(start);
        buffer.putLong(end);
        buffer.putLong(0);                              // limit: none
        buffer.put((byte)Dbn.STYPE_RAW_SYMBOL);         // stype_in
        buffer.put((byte)Dbn.STYPE_INSTRUMENT_ID);      // stype_out
        buffer.put((byte)0);                            // ts_out: records carry no gateway send time
        buffer.putShort((short)cstr);
        buffer.position(buffer.position() + Dbn.METADATA_RESERVED_LEN);
        buffer.putInt(0);                               // schema_definition_length

        buffer.putInt(mappings.size());                 // symbols
        for (final Mapping mapping : mappings)
        {
            putCString(buffer, mapping.rawSymbol, cstr);
        }
        buffer.putInt(0);                               // partial
        buffer.putInt(0);                               // not_found

        final int startDate = yyyymmdd(sessionDate);
        final int endDate = yyyymmdd(sessionDate.plusDays(1));
        buffer.putInt(mappings.size());
        for (final Mapping mapping : mappings)
        {
            putCString(buffer, mapping.rawSymbol, cstr);
            buffer.putInt(1);                           // one interval: a locate code holds for the whole day
            buffer.putInt(startDate);
            buffer.putInt(endDate);
            putCString(buffer, Long.toString(mapping.instrumentId), cstr);
        }
        buffer.position(buffer.position() + padding);
        buffer.flip();
        return buffer;
    }

    static int yyyymmdd(final LocalDate date)
    {
        return date.getYear() * 10_000 + date.getMonthValue() * 100 + date.getDayOfMonth();
    }

    static void putCString(final ByteBuffer buffer, final String value, final int length)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length >= length)
        {
            throw new IllegalArgumentException("'" + value + "' does not fit a C string of " + length + " bytes");
        }
        final int start = buffer.position();
        buffer.put(bytes);
        for (int i = bytes.length; i < length; i++)
        {
            buffer.put((byte)0);
        }
        buffer.position(start + length);
    }
}
