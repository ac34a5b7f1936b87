package io.mdfanout.tools.dbn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the DBN reader script prints, parsed without a library: objects, arrays, strings (with the
 * escapes Python's json writes), integers (u64 kept as their two's complement long, so UNDEF_TIMESTAMP reads as
 * -1 like Java's own u64 values), floats, booleans and null.
 */
final class MiniJson
{
    private final String text;
    private int position;

    private MiniJson(final String text)
    {
        this.text = text;
    }

    static Object parse(final String text)
    {
        final MiniJson parser = new MiniJson(text);
        final Object value = parser.value();
        parser.skipWhitespace();
        if (parser.position != text.length())
        {
            throw new IllegalArgumentException("trailing characters at " + parser.position);
        }
        return value;
    }

    private Object value()
    {
        skipWhitespace();
        final char c = text.charAt(position);
        switch (c)
        {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                position += 4;
                return Boolean.TRUE;
            case 'f':
                position += 5;
                return Boolean.FALSE;
            case 'n':
                position += 4;
                return null;
            default:
                return number();
        }
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        position++;
        skipWhitespace();
        if (text.charAt(position) == '}')
        {
            position++;
            return map;
        }
        while (true)
        {
            skipWhitespace();
            final String key = string();
            skipWhitespace();
            expect(':');
            map.put(key, value());
            skipWhitespace();
            if (text.charAt(position) == ',')
            {
                position++;
                continue;
            }
            expect('}');
            return map;
        }
    }

    private List<Object> array()
    {
        final List<Object> list = new ArrayList<>();
        position++;
        skipWhitespace();
        if (text.charAt(position) == ']')
        {
            position++;
            return list;
        }
        while (true)
        {
            list.add(value());
            skipWhitespace();
            if (text.charAt(position) == ',')
            {
                position++;
                continue;
            }
            expect(']');
            return list;
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final char c = text.charAt(position++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char escaped = text.charAt(position++);
            switch (escaped)
            {
                case 'n':
                    sb.append('\n');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'u':
                    sb.append((char)Integer.parseInt(text.substring(position, position + 4), 16));
                    position += 4;
                    break;
                default:
                    sb.append(escaped);
                    break;
            }
        }
    }

    private Object number()
    {
        final int start = position;
        while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0)
        {
            position++;
        }
        final String token = text.substring(start, position);
        if (token.indexOf('.') >= 0 || token.indexOf('e') >= 0 || token.indexOf('E') >= 0)
        {
            return Double.parseDouble(token);
        }
        return token.startsWith("-") ? Long.parseLong(token) : Long.parseUnsignedLong(token);
    }

    private void expect(final char c)
    {
        if (text.charAt(position) != c)
        {
            throw new IllegalArgumentException("expected '" + c + "' at " + position + ", found '" + text.charAt(position) + "'");
        }
        position++;
    }

    private void skipWhitespace()
    {
        while (position < text.length() && Character.isWhitespace(text.charAt(position)))
        {
            position++;
        }
    }
}
