package io.mdfanout.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code bin/mdfanout} command line in the user docs, taken from their markdown, is one the CLI accepts: its
 * role exists and every option it gives exists and takes the value written. A renamed or removed option fails here,
 * naming the document and line, instead of failing a reader. ({@link QuickstartTest} runs QUICKSTART's blocks.)
 */
class DocumentedCommandsTest
{
    static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

    @Test
    void everyDocumentedCommandLineParses() throws IOException
    {
        final List<MarkdownCommands.Command> commands = new ArrayList<>();
        for (final Path doc : documents())
        {
            commands.addAll(MarkdownCommands.of(doc));
        }
        final List<String> refused = new ArrayList<>();
        final List<String> roles = new ArrayList<>();
        for (final MarkdownCommands.Command command : commands)
        {
            try
            {
                final CommandLine.ParseResult result = new CommandLine(new Main())
                    .parseArgs(command.args().toArray(new String[0]));
                assertTrue(result.hasSubcommand(), command.where() + ": no role: " + command.text());
                roles.add(result.subcommand().commandSpec().name());
            }
            catch (final CommandLine.ParameterException ex)
            {
                refused.add(command.where() + ": " + ex.getMessage() + "\n    " + command.text());
            }
        }
        assertEquals(List.of(), refused, "documented command lines the CLI refuses");
        // The extraction itself: QUICKSTART alone runs each of these roles.
        final long quickstart = commands.stream().filter((c) -> c.file().endsWith(Path.of("docs", "QUICKSTART.md")))
            .count();
        assertTrue(quickstart >= 15, "QUICKSTART's commands were found: " + quickstart);
        for (final String role : List.of("feed-handler", "fanout", "simulator", "book", "tail", "stats", "replay",
            "archive", "record", "export"))
        {
            assertTrue(roles.contains(role), "a documented " + role + " command line was checked: " + roles);
        }
        System.out.println("docs: " + commands.size() + " documented command lines parse (" + documents().size() +
            " documents)");
    }

    @Test
    void commandLinesAreSplitAsTheShellSplitsThem()
    {
        assertEquals(List.of("bin/mdfanout", "fanout", "--channel", "aeron:udp?endpoint=224.0.1.1:40456|mtu=8192"),
            MarkdownCommands.words("bin/mdfanout fanout --channel 'aeron:udp?endpoint=224.0.1.1:40456|mtu=8192'"));
        assertEquals(List.of("bin/mdfanout", "fanout", "--channel", "aeron:udp?endpoint=a|b"),
            MarkdownCommands.words("bin/mdfanout fanout --channel aeron:udp\\?endpoint=a\\|b | tee log"));
        assertEquals(List.of("A=b c", "bin/mdfanout", "stats"), MarkdownCommands.words("\"A=b c\" bin/mdfanout stats &"));
        assertEquals(List.of("bin/mdfanout", "record", "--out", "x"),
            MarkdownCommands.words("bin/mdfanout record --out x > out.txt 2>&1"));
    }

    static List<Path> documents() throws IOException
    {
        final List<Path> documents = new ArrayList<>();
        documents.add(REPOSITORY.resolve("README.md"));
        for (final String dir : List.of("docs", "charts", "examples"))
        {
            try (Stream<Path> files = Files.walk(REPOSITORY.resolve(dir)))
            {
                files.filter((f) -> f.toString().endsWith(".md") && !f.toString().contains("/target/") &&
                    !f.toString().contains("/node_modules/")).sorted().forEach(documents::add);
            }
        }
        return documents;
    }
}
