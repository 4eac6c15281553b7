<?php
/**
 * Functions a reader can hold, in PHP as in TypeScript (test/function-length.test.ts): no function or method of the
 * plugin (its tests aside) is over 80 lines. Found with PHP's own tokenizer, so a new function cannot grow past it
 * unnoticed.
 *
 * @package Sitewright
 */

declare(strict_types=1);

/**
 * Function length.
 */
final class FunctionLengthTest extends Sitewright_Test_Case {

	/** The most lines a function may have, from its `function` keyword to its closing brace. */
	private const MAX_LINES = 80;

	/**
	 * Every function with a body (named functions, methods, closures) in a PHP source, with its length in lines.
	 * Arrow functions (`fn`) are expressions and count in the function that holds them.
	 *
	 * @param string $code PHP source.
	 * @return array<int, array{name: string, line: int, lines: int}>
	 */
	private function lengths( string $code ): array {
		$tokens = array();
		$line   = 1;
		foreach ( token_get_all( $code ) as $token ) {
			$text     = is_array( $token ) ? $token[1] : $token;
			$line     = is_array( $token ) ? $token[2] : $line;
			$tokens[] = array( is_array( $token ) ? $token[0] : $token, $line, $text );
			$line    += substr_count( $text, "\n" );
		}
		$found = array();
		foreach ( $tokens as $index => $token ) {
			if ( T_FUNCTION !== $token[0] ) {
				continue;
			}
			$end = $this->closing_line( $tokens, $index );
			if ( null !== $end ) {
				$found[] = array(
					'name'  => $this->name( $tokens, $index ),
					'line'  => $token[1],
					'lines' => $end - $token[1] + 1,
				);
			}
		}
		return $found;
	}

	/**
	 * The line of the brace that closes the body of the function at $start, or null when it has none (abstract).
	 *
	 * @param array<int, array{0: int|string, 1: int, 2: string}> $tokens Tokens with their lines.
	 * @param int                                                 $start  The `function` keyword's index.
	 */
	private function closing_line( array $tokens, int $start ): ?int {
		$depth = 0;
		$count = count( $tokens );
		for ( $i = $start + 1; $i < $count; $i++ ) {
			$kind = $tokens[ $i ][0];
			if ( 0 === $depth && ';' === $kind ) {
				return null;
			}
			if ( in_array( $kind, array( '{', T_CURLY_OPEN, T_DOLLAR_OPEN_CURLY_BRACES ), true ) ) {
				++$depth;
			} elseif ( '}' === $kind && 0 === --$depth ) {
				return $tokens[ $i ][1];
			}
		}
		return null;
	}

	/**
	 * The function's name, or `{closure}`.
	 *
	 * @param array<int, array{0: int|string, 1: int, 2: string}> $tokens Tokens with their lines.
	 * @param int                                                 $start  The `function` keyword's index.
	 */
	private function name( array $tokens, int $start ): string {
		$count = count( $tokens );
		for ( $i = $start + 1; $i < $count && '(' !== $tokens[ $i ][0]; $i++ ) {
			if ( T_STRING === $tokens[ $i ][0] ) {
				return $tokens[ $i ][2];
			}
		}
		return '{closure}';
	}

	/**
	 * The plugin's PHP files, tests aside (as the TypeScript check leaves out *.test.ts).
	 *
	 * @return array<int, string>
	 */
	private function plugin_files(): array {
		$root  = SITEWRIGHT_TEST_REPO . '/plugin';
		$files = array();
		foreach ( new RecursiveIteratorIterator( new RecursiveDirectoryIterator( $root, FilesystemIterator::SKIP_DOTS ) ) as $file ) {
			$path = (string) $file;
			if ( str_ends_with( $path, '.php' ) && ! str_starts_with( $path, $root . '/tests/' ) ) {
				$files[] = $path;
			}
		}
		sort( $files );
		return $files;
	}

	public function test_counts_a_function_from_its_keyword_to_its_closing_brace_methods_and_closures_included(): void {
		$code = implode(
			"\n",
			array(
				'<?php',
				'abstract class A {',
				'	abstract public function later(): void;',
				'	public function greet( string $name ): string {',
				'		$say = function () use ( $name ) {',
				'			return "Hello {$name}";',
				'		};',
				'		return $say() . "${name}" . \'}\';',
				'	}',
				'}',
				'function short() {',
				'	return 1;',
				'}',
			)
		);
		$this->assertSame(
			array(
				array(
					'name'  => 'greet',
					'line'  => 4,
					'lines' => 6,
				),
				array(
					'name'  => '{closure}',
					'line'  => 5,
					'lines' => 3,
				),
				array(
					'name'  => 'short',
					'line'  => 11,
					'lines' => 3,
				),
			),
			$this->lengths( $code )
		);
	}

	public function test_a_function_over_80_lines_is_found(): void {
		$body = implode( "\n", array_fill( 0, 79, "\t\$x = 1;" ) );
		$long = array_filter( $this->lengths( "<?php\nfunction long_one() {\n$body\n}\n" ), static fn( array $f ): bool => $f['lines'] > self::MAX_LINES );
		$this->assertSame( array( 'long_one' ), array_column( $long, 'name' ) );
	}

	public function test_no_function_of_the_plugin_is_over_80_lines(): void {
		$files = $this->plugin_files();
		$this->assertContains( SITEWRIGHT_TEST_REPO . '/plugin/includes/class-sitewright-items.php', $files );
		$long = array();
		foreach ( $files as $file ) {
			foreach ( $this->lengths( (string) file_get_contents( $file ) ) as $function ) {
				if ( $function['lines'] > self::MAX_LINES ) {
					$long[] = sprintf( '%s:%d %s (%d lines)', substr( $file, strlen( SITEWRIGHT_TEST_REPO ) + 1 ), $function['line'], $function['name'], $function['lines'] );
				}
			}
		}
		$this->assertSame( array(), $long );
	}
}
