package io.mdfanout.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code bin/mdfanout} (or {@code mdfanout}) command lines of a markdown document, taken from its fenced code
 * blocks as a reader would type them: continuation lines joined, comments dropped, words split as the shell splits
 * them (quotes and backslash escapes), the command ending at the first shell operator (a pipe, a redirection,
 * {@code &&}, {@code ;}, {@code &}). Lines with a placeholder ({@code ...}, {@code <name>} or an optional
 * {@code [--option]}) are examples of a shape, not commands, and are left out.
 */
final class MarkdownCommands
{
    /** The launcher as the docs spell it. */
    static final String LAUNCHER = "bin/mdfanout";

    /**
     * A command of a document.
     *
     * @param file  the document.
     * @param line  its first line in the document (1-based).
     * @param block the index of its fenced block in the document (0-based).
     * @param text  the command as written (continuations joined).
     * @param args  the words after the launcher: the role and its options.
     */
    record Command(Path file, int line, int block, String text, List<String> args)
    {
        String where()
        {
            return file.getFileName() + ":" + line;
        }
    }

    private MarkdownCommands()
    {
    }

    static List<Command> of(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file);
        final List<Command> commands = new ArrayList<>();
        boolean inBlock = false;
        int block = -1;
        for (int i = 0; i < lines.size(); i++)
        {
            final String trimmed = lines.get(i).trim();
            if (trimmed.startsWith("```"))
            {
                inBlock = !inBlock;
                block += inBlock ? 1 : 0;
                continue;
            }
            if (!inBlock || trimmed.startsWith("#") || trimmed.isEmpty())
            {
                continue;
            }
            final int first = i;
            final StringBuilder text = new StringBuilder(trimmed);
            while (text.length() > 0 && text.charAt(text.length() - 1) == '\\' && i + 1 < lines.size())
            {
                text.setLength(text.length() - 1);
                text.append(' ').append(lines.get(++i).trim());
            }
            final String command = text.toString().replaceAll("\\s+", " ").trim();
            final List<String> words = words(command);
            final int launcher = launcher(words);
            if (launcher < 0 || command.contains("...") || command.contains("[--") ||
                command.matches(".*<[a-z-]+>.*"))
            {
                continue;
            }
            commands.add(new Command(file, first + 1, block, command, words.subList(launcher + 1, words.size())));
        }
        return commands;
    }

    /**
     * Where the launcher is: {@code bin/mdfanout}, or {@code mdfanout} as in the image and the installed layout (a
     * word followed by a role, not by a label such as a diagram's {@code mdfanout book:}).
     */
    private static int launcher(final List<String> words)
    {
        for (int i = 0; i < words.size() - 1; i++)
        {
            final String word = words.get(i);
            if ((LAUNCHER.equals(word) || "mdfanout".equals(word)) && words.get(i + 1).matches("[a-z][a-z-]*"))
            {
                return i;
            }
        }
        return -1;
    }

    /** The words of a command line as the shell splits them, up to its first operator. */
    static List<String> words(final String line)
    {
        final List<String> words = new ArrayList<>();
        final StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++)
        {
            final char c = line.charAt(i);
            if (c == '\'')
            {
                final int end = line.indexOf('\'', i + 1);
                word.append(line, i + 1, end < 0 ? line.length() : end);
                i = end < 0 ? line.length() : end;
                inWord = true;
            }
            else if (c == '"')
            {
                int j = i + 1;
                for (; j < line.length() && line.charAt(j) != '"'; j++)
                {
                    if (line.charAt(j) == '\\' && j + 1 < line.length() && "\"\\$`".indexOf(line.charAt(j + 1)) >= 0)
                    {
                        j++;
                    }
                    word.append(line.charAt(j));
                }
                i = j;
                inWord = true;
            }
            else if (c == '\\' && i + 1 < line.length())
            {
                word.append(line.charAt(++i));
                inWord = true;
            }
            else if (c == ' ')
            {
                if (inWord)
                {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            }
            else if ("|&;<>".indexOf(c) >= 0)
            {
                break;
            }
            else
            {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord)
        {
            words.add(word.toString());
        }
        return words;
    }
}
