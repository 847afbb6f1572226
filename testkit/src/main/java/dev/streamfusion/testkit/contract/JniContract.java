package dev.streamfusion.testkit.contract;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The contract between a module's Java classes and the native library, checked from both sides:
 * every {@code native} method has its exported {@code Java_*} function in the {@code jni} crate,
 * every such function has its native method, and every upcall a {@code jni} file makes
 * ({@code call_method} with a name and a signature) exists on the class its header names. A rename
 * on either side then fails a test instead of a job ({@code UnsatisfiedLinkError},
 * {@code NoSuchMethodError}).
 */
public final class JniContract {

    private static final Pattern EXPORTED = Pattern.compile("extern \"system\" fn (Java_\\w+)");
    private static final Pattern UPCALL =
            Pattern.compile("call_method\\(\\s*[^,]+,\\s*jni_str!\\(\"(\\w+)\"\\),\\s*jni_sig!\\(\"([^\"]+)\"\\)");
    /**
     * The class a {@code jni} file binds: the first {@code dev.streamfusion} name its header
     * quotes, or the JDK class (a {@code java.} name) whose methods it calls.
     */
    private static final Pattern HEADER_CLASS =
            Pattern.compile("^//!.*?`((?:dev\\.streamfusion|java)\\.[\\w.]+)`");

    private JniContract() {}

    /**
     * Checks the contract for the classes of {@code packagePrefix} compiled into {@code
     * target/classes} of the module under test, against {@code native/crates/jni/src}.
     *
     * @throws AssertionError listing every native method without its function, every function
     *     without its method, and every upcall without its method
     */
    public static void assertBound(String packagePrefix) throws IOException, ClassNotFoundException {
        Path classes = Paths.get("target", "classes");
        Path jni = Paths.get("..", "native", "crates", "jni", "src");
        if (!Files.isDirectory(jni)) {
            throw new AssertionError("No jni crate at " + jni.toAbsolutePath());
        }
        Map<String, String> expected = nativeMethods(classes, packagePrefix);
        Map<String, String> exported = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        String symbolPrefix = "Java_" + mangle(packagePrefix.replace('.', '/')) + "_";
        for (Path file : rustFiles(jni)) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Matcher symbols = EXPORTED.matcher(text);
            while (symbols.find()) {
                if (symbols.group(1).startsWith(symbolPrefix)) {
                    exported.put(symbols.group(1), jni.relativize(file).toString());
                }
            }
            checkUpcalls(file, text, packagePrefix, problems);
        }
        expected.forEach((symbol, method) -> {
            if (!exported.containsKey(symbol)) {
                problems.add("native method " + method + " has no function " + symbol + " in the jni crate");
            }
        });
        exported.forEach((symbol, file) -> {
            if (!expected.containsKey(symbol)) {
                problems.add(file + " exports " + symbol + ", which no native method of " + packagePrefix + " binds");
            }
        });
        if (expected.isEmpty() && exported.isEmpty()) {
            problems.add("no native method in " + classes.toAbsolutePath() + " under " + packagePrefix);
        }
        if (!problems.isEmpty()) {
            throw new AssertionError(String.join("\n", problems));
        }
    }

    /** The JNI function name of each native method of the classes under {@code packagePrefix}. */
    private static Map<String, String> nativeMethods(Path classes, String packagePrefix)
            throws IOException, ClassNotFoundException {
        Path root = classes.resolve(packagePrefix.replace('.', '/'));
        Map<String, String> symbols = new TreeMap<>();
        if (!Files.isDirectory(root)) {
            return symbols;
        }
        List<Path> classFiles;
        try (Stream<Path> files = Files.walk(root)) {
            classFiles = files.filter(f -> f.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
        ClassLoader loader = JniContract.class.getClassLoader();
        for (Path file : classFiles) {
            String binary = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
            Class<?> type = Class.forName(binary, false, loader);
            Map<String, Integer> overloads = new TreeMap<>();
            for (Method method : type.getDeclaredMethods()) {
                if (Modifier.isNative(method.getModifiers())) {
                    overloads.merge(method.getName(), 1, Integer::sum);
                    String symbol = "Java_" + mangle(binary.replace('.', '/')) + "_" + mangle(method.getName());
                    symbols.put(symbol, binary + "#" + method.getName());
                }
            }
            overloads.forEach((name, count) -> {
                if (count > 1) {
                    throw new AssertionError(binary + " overloads native method " + name
                            + ": the jni crate binds short names only");
                }
            });
        }
        return symbols;
    }

    /** Checks that each upcall of {@code file} exists on the class its header names. */
    private static void checkUpcalls(Path file, String text, String packagePrefix, List<String> problems)
            throws ClassNotFoundException {
        Matcher calls = UPCALL.matcher(text);
        if (!calls.find()) {
            return;
        }
        Matcher header = HEADER_CLASS.matcher(text);
        if (!header.find()) {
            problems.add(file + " calls into Java without naming the class in its header");
            return;
        }
        String className = header.group(1);
        // A JDK class's upcalls are checked with every module's classes.
        if (!className.startsWith(packagePrefix + ".") && !className.startsWith("java.")) {
            return;
        }
        Class<?> type = Class.forName(className, false, JniContract.class.getClassLoader());
        do {
            String name = calls.group(1);
            String signature = calls.group(2);
            boolean found = false;
            for (Method method : type.getMethods()) {
                if (method.getName().equals(name) && descriptor(method).equals(signature)) {
                    found = true;
                }
            }
            if (!found) {
                problems.add(file.getFileName() + " calls " + className + "." + name + signature
                        + ", which is not a public method of it");
            }
        } while (calls.find());
    }

    private static List<Path> rustFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".rs")).sorted().collect(Collectors.toList());
        }
    }

    /** A name as the JNI specification escapes it in function names; {@code /} separates. */
    static String mangle(String name) {
        StringBuilder out = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (c == '/') {
                out.append('_');
            } else if (c == '_') {
                out.append("_1");
            } else if (c == ';') {
                out.append("_2");
            } else if (c == '[') {
                out.append("_3");
            } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
                out.append(c);
            } else {
                out.append(String.format("_0%04x", (int) c));
            }
        }
        return out.toString();
    }

    /** The JVM descriptor of a method, as {@code jni_sig!} spells it. */
    static String descriptor(Method method) {
        StringBuilder out = new StringBuilder("(");
        for (Class<?> parameter : method.getParameterTypes()) {
            out.append(descriptor(parameter));
        }
        return out.append(')').append(descriptor(method.getReturnType())).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return type.getName().replace('.', '/');
        }
        if (type.isPrimitive()) {
            switch (type.getName()) {
                case "void": return "V";
                case "boolean": return "Z";
                case "byte": return "B";
                case "char": return "C";
                case "short": return "S";
                case "int": return "I";
                case "long": return "J";
                case "float": return "F";
                default: return "D";
            }
        }
        return "L" + type.getName().replace('.', '/') + ";";
    }
}
