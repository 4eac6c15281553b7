<?php
/**
 * The places where visitors would see an item: what POST /sitewright/v1/items/visibility answers per change
 * (docs/visibility.md). At most MAX places are kept; the rest are counted in `more`.
 *
 * @package Sitewright
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/**
 * A bounded, de-duplicated list of places.
 */
final class Sitewright_Places {

	/** The most places one item lists (the rest are counted). */
	public const MAX = 10;

	/** The longest label, in characters (the app accepts up to 300). */
	public const MAX_LABEL = 240;

	/** The longest url kept, in bytes (a longer one is left out: the label still names the place). */
	private const MAX_URL = 2000;

	/** The kinds of place (vocabulary.json items.placeKinds). */
	public const KINDS = array( 'post', 'gallery', 'attachment_page', 'site_logo', 'site_icon', 'menu', 'navigation', 'widget', 'feed', 'archive', 'template_part', 'template', 'pattern', 'setting', 'design', 'unknown' );

	/**
	 * The places kept.
	 *
	 * @var array<int, array{kind: string, label: string, url?: string}>
	 */
	private array $places = array();

	/**
	 * Labels seen, so one place is listed once.
	 *
	 * @var array<string, true>
	 */
	private array $seen = array();

	/**
	 * Places found beyond MAX.
	 *
	 * @var int
	 */
	private int $more = 0;

	/**
	 * Adds a place (once per kind and label).
	 *
	 * @param string $kind  One of KINDS.
	 * @param string $label A sentence fragment a person reads on the card.
	 * @param string $url   Where a visitor sees it, if there is one address.
	 */
	public function add( string $kind, string $label, string $url = '' ): void {
		if ( mb_strlen( $label ) > self::MAX_LABEL ) {
			$label = mb_substr( $label, 0, self::MAX_LABEL - 1 ) . '…'; // A title can be long; a card line is not.
		}
		$url = strlen( $url ) > self::MAX_URL ? '' : $url;
		$key = $kind . "\n" . $label;
		if ( isset( $this->seen[ $key ] ) ) {
			return;
		}
		$this->seen[ $key ] = true;
		if ( count( $this->places ) >= self::MAX ) {
			++$this->more;
			return;
		}
		$place = array(
			'kind'  => $kind,
			'label' => $label,
		);
		if ( '' !== $url ) {
			$place['url'] = $url;
		}
		$this->places[] = $place;
	}

	/**
	 * Counts places found but not listed (e.g. the rest of a bounded query's total).
	 *
	 * @param int $count How many.
	 */
	public function add_more( int $count ): void {
		$this->more += max( 0, $count );
	}

	/**
	 * The place that makes an item visible when Sitewright cannot tell where it shows (erring on visible).
	 *
	 * @param string $why Why, if more can be said than the default sentence.
	 */
	public function unknown( string $why = '' ): void {
		$this->add( 'unknown', '' !== $why ? $why : __( 'Sitewright could not tell where this shows, so it counts as visible', 'sitewright-connector' ) );
	}

	/**
	 * Whether any place shows the item.
	 */
	public function visible(): bool {
		return array() !== $this->places;
	}

	/**
	 * The answer for one change: `{ref, visible, places, more}`.
	 *
	 * @param string $ref The change's ref.
	 * @return array{ref: string, visible: bool, places: array<int, array<string, string>>, more: int}
	 */
	public function answer( string $ref ): array {
		return array(
			'ref'     => $ref,
			'visible' => $this->visible(),
			'places'  => $this->places,
			'more'    => $this->more,
		);
	}
}
