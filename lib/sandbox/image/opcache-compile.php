<?php
/**
 * Fills PHP's opcache file cache when the image is built, so a sandbox's first request loads WordPress compiled
 * instead of compiling it (about 0.4 s of a cold start). lib/sandbox/image.ts runs it inside the image being built,
 * with the PHP binary and ini the sandbox runs (the cache is keyed by that PHP's system id, the script's path and
 * its mtime, all the same in every container of the image):
 *   php -d opcache.enable_cli=1 -d opcache.file_cache=/srv/opcache -d opcache.file_update_protection=0 \
 *     opcache-compile.php /srv/wordpress /srv/router.php
 * Only code that is the same in every sandbox is compiled: the image's files. Nothing under /data (the database,
 * the per-container salts, uploads) exists at build time, and wp-config.php holds no secret (it reads the salts
 * from /data/salts.php at run time).
 */
declare(strict_types=1);

$roots = array_slice( $argv, 1 );
$status = function_exists( 'opcache_get_status' ) ? opcache_get_status( false ) : false;
if ( ! $roots || ! is_array( $status ) || ! $status['opcache_enabled'] || empty( $status['file_cache'] ) ) {
	fwrite( STDERR, "usage: php -d opcache.enable_cli=1 -d opcache.file_cache=DIR opcache-compile.php PATH...\n" );
	exit( 2 );
}

/**
 * Compiles each file into the cache; returns the ones that failed. Compiling declares a file's top-level functions in
 * this process, so two files that declare the same function (wp-admin/includes/noop.php stubs WordPress's) cannot
 * both compile in one process: those that failed are compiled again in a fresh one, while that makes progress.
 */
function sitewright_compile( array $files ): array {
	$failed = array();
	foreach ( $files as $file ) {
		try {
			if ( ! @opcache_compile_file( $file ) ) {
				$failed[] = $file;
			}
		} catch ( Throwable $error ) {
			$failed[] = $file;
		}
	}
	if ( ! $failed || count( $failed ) === count( $files ) ) {
		return $failed;
	}
	$command = array(
		PHP_BINARY,
		'-d', 'opcache.enable_cli=1',
		'-d', 'opcache.file_cache=' . ini_get( 'opcache.file_cache' ),
		'-d', 'opcache.file_update_protection=0',
		'-d', 'opcache.memory_consumption=' . ini_get( 'opcache.memory_consumption' ),
		__FILE__, '--again', ...$failed,
	);
	$child = proc_open( $command, array( 1 => array( 'pipe', 'w' ), 2 => array( 'file', '/dev/null', 'w' ) ), $pipes );
	$out = stream_get_contents( $pipes[1] );
	fclose( $pipes[1] );
	proc_close( $child );
	return (array) ( json_decode( (string) $out, true )['failed'] ?? $failed );
}

if ( $roots[0] === '--again' ) {
	echo json_encode( array( 'failed' => sitewright_compile( array_slice( $roots, 1 ) ) ) ), "\n";
	exit( 0 );
}

$files = array();
foreach ( $roots as $root ) {
	if ( is_file( $root ) ) {
		$files[] = $root;
		continue;
	}
	// Symbolic links are not followed: wp-content/uploads points into /data, which holds per-sandbox data.
	$walk = new RecursiveIteratorIterator( new RecursiveDirectoryIterator( $root, FilesystemIterator::SKIP_DOTS ) );
	foreach ( $walk as $file ) {
		if ( $file->isFile() && ! $file->isLink() && str_ends_with( $file->getFilename(), '.php' ) ) {
			$files[] = $file->getPathname();
		}
	}
}
sort( $files );
$failed = sitewright_compile( $files );

// Every file must be in the file cache (`<dir>/<PHP's system id><path>.bin`): one left out would be compiled on a
// sandbox's request again, unseen.
$missing = array_values( array_filter( $files, static fn ( string $file ) => ! glob( $status['file_cache'] . '/*' . $file . '.bin' ) ) );
echo json_encode( array( 'files' => count( $files ), 'failed' => $failed, 'missing' => $missing ) ), "\n";
exit( $failed || $missing ? 1 : 0 );
