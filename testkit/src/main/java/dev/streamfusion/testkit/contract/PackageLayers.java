package dev.streamfusion.testkit.contract;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How a module's Java packages depend on each other, read from {@code src/main/java} (imports and
 * fully qualified names): no cycles, and packages that are declared leaves use none of their
 * siblings.
 */
public final class PackageLayers {

    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.streamfusion(?:\\.[a-z][a-z0-9]*)+)\\.[A-Z]");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    private final Map<String, Set<String>> uses;

    private PackageLayers(Map<String, Set<String>> uses) {
        this.uses = uses;
    }

    /** The packages of the module under test, from its {@code src/main/java}. */
    public static PackageLayers ofModule() throws IOException {
        Path sources = Paths.get("src", "main", "java");
        Map<String, Set<String>> uses = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(f -> f.toString().endsWith(".java")).sorted().collect(Collectors.toList());
        }
        for (Path file : files) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Matcher declared = PACKAGE.matcher(text);
            if (!declared.find()) {
                continue;
            }
            String own = declared.group(1);
            Set<String> used = uses.computeIfAbsent(own, p -> new TreeSet<>());
            Matcher reference = REFERENCE.matcher(text.substring(declared.end()));
            while (reference.find()) {
                if (!reference.group(1).equals(own)) {
                    used.add(reference.group(1));
                }
            }
        }
        return new PackageLayers(uses);
    }

    /** Packages and what each uses, as given. */
    static PackageLayers of(Map<String, Set<String>> uses) {
        return new PackageLayers(new TreeMap<>(uses));
    }

    /** The packages of the module and, for each, the module's packages it uses. */
    public Map<String, Set<String>> uses() {
        Map<String, Set<String>> within = new TreeMap<>();
        uses.forEach((p, used) -> within.put(
                p, used.stream().filter(uses::containsKey).collect(Collectors.toCollection(TreeSet::new))));
        return Collections.unmodifiableMap(within);
    }

    /**
     * @throws AssertionError naming a cycle among the module's packages
     */
    public PackageLayers assertAcyclic() {
        Map<String, Set<String>> within = uses();
        Set<String> done = new HashSet<>();
        for (String start : within.keySet()) {
            List<String> cycle = cycleFrom(start, within, new ArrayList<>(), done);
            if (cycle != null) {
                throw new AssertionError("Package cycle: " + String.join(" -> ", cycle));
            }
        }
        return this;
    }

    /**
     * @throws AssertionError when {@code leaf} uses another package of the module under {@code root}
     */
    public PackageLayers assertLeaf(String leaf, String root) {
        Set<String> used = uses().getOrDefault(leaf, Set.of());
        Set<String> siblings =
                used.stream().filter(p -> p.startsWith(root + ".") || p.equals(root)).collect(Collectors.toSet());
        if (!uses.containsKey(leaf)) {
            throw new AssertionError("No package " + leaf + " in the module");
        }
        if (!siblings.isEmpty()) {
            throw new AssertionError(leaf + " uses " + siblings + "; it may use only packages outside " + root);
        }
        return this;
    }

    private static List<String> cycleFrom(
            String at, Map<String, Set<String>> uses, List<String> path, Set<String> done) {
        int seen = path.indexOf(at);
        if (seen >= 0) {
            List<String> cycle = new ArrayList<>(path.subList(seen, path.size()));
            cycle.add(at);
            return cycle;
        }
        if (done.contains(at)) {
            return null;
        }
        path.add(at);
        for (String next : uses.getOrDefault(at, Set.of())) {
            List<String> cycle = cycleFrom(next, uses, path, done);
            if (cycle != null) {
                return cycle;
            }
        }
        path.remove(path.size() - 1);
        done.add(at);
        return null;
    }
}
