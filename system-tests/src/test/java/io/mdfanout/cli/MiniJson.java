package io.mdfanout.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for the tests (the build has no JSON library): objects become {@link Map}s in
 * document order, arrays {@link List}s, numbers {@link Long}s when integral (a {@link java.math.BigInteger}
 * past a long), else {@link Double}s, and {@code true}, {@code false}, {@code null} themselves. Strict
 * enough to refuse a malformed document with its offset.
 */
final class MiniJson
{
    private final String text;
    private int pos;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    static Object parse(final String text)
    {
        final MiniJson reader = new MiniJson(text);
        final Object value = reader.value();
        reader.skipWhitespace();
        if (reader.pos != text.length())
        {
            throw reader.error("trailing characters");
        }
        return value;
    }

    private Object value()
    {
        skipWhitespace();
        if (pos >= text.length())
        {
            throw error("unexpected end");
        }
        final char c = text.charAt(pos);
        switch (c)
        {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default: return number();
        }
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> object = new LinkedHashMap<>();
        pos++;
        skipWhitespace();
        if (peek() == '}')
        {
            pos++;
            return object;
        }
        while (true)
        {
            skipWhitespace();
            if (peek() != '"')
            {
                throw error("expected a key");
            }
            final String key = string();
            skipWhitespace();
            expect(':');
            object.put(key, value());
            skipWhitespace();
            if (peek() == ',')
            {
                pos++;
                continue;
            }
            expect('}');
            return object;
        }
    }

    private List<Object> array()
    {
        final List<Object> array = new ArrayList<>();
        pos++;
        skipWhitespace();
        if (peek() == ']')
        {
            pos++;
            return array;
        }
        while (true)
        {
            array.add(value());
            skipWhitespace();
            if (peek() == ',')
            {
                pos++;
                continue;
            }
            expect(']');
            return array;
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder builder = new StringBuilder();
        while (true)
        {
            if (pos >= text.length())
            {
                throw error("unterminated string");
            }
            final char c = text.charAt(pos++);
            if (c == '"')
            {
                return builder.toString();
            }
            if (c != '\\')
            {
                builder.append(c);
                continue;
            }
            final char escaped = text.charAt(pos++);
            switch (escaped)
            {
                case '"': case '\\': case '/': builder.append(escaped); break;
                case 'b': builder.append('\b'); break;
                case 'f': builder.append('\f'); break;
                case 'n': builder.append('\n'); break;
                case 'r': builder.append('\r'); break;
                case 't': builder.append('\t'); break;
                case 'u':
                    builder.append((char)Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                    break;
                default: throw error("bad escape \\" + escaped);
            }
        }
    }

    private Number number()
    {
        final int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0)
        {
            pos++;
        }
        if (start == pos)
        {
            throw error("unexpected character '" + text.charAt(pos) + "'");
        }
        final String literal = text.substring(start, pos);
        // Integers stay exact (epoch nanoseconds and order ids do not fit a double's 53 bits).
        if (literal.matches("-?\\d{1,19}"))
        {
            try
            {
                return Long.valueOf(literal);
            }
            catch (final NumberFormatException ex)
            {
                return new java.math.BigInteger(literal);
            }
        }
        return Double.valueOf(literal);
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, pos))
        {
            throw error("expected " + word);
        }
        pos += word.length();
        return value;
    }

    private void expect(final char c)
    {
        if (peek() != c)
        {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek()
    {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipWhitespace()
    {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos)))
        {
            pos++;
        }
    }

    private IllegalArgumentException error(final String message)
    {
        return new IllegalArgumentException("JSON: " + message + " at offset " + pos);
    }
}
