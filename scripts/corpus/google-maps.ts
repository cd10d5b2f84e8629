// Dataset items of the Google Maps scraper (compass/crawler-google-places): one object per
// place with about 70 fields, many of them nullable, nested objects whose key sets vary per place
// (`additionalInfo`), arrays of objects (`openingHours`, `peopleAlsoSearch`, `reviews`) and the
// big `popularTimesHistogram`. This is the shape that defeats TOON's tabular form.
import type { Random } from './random.js';
import { CORPUS_NOW, DAY, digits, HOUR, hex, iso, personName, round, sentences } from './text.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface City {
  name: string;
  countryCode: string;
  country: string;
  lat: number;
  lng: number;
  state: string | null;
  postalCodes: string[];
  neighborhoods: string[];
  streets: string[];
  phone: (random: Random) => string;
  currency: string;
  addressLine: (street: string, postalCode: string, neighborhood: string) => string;
}

const CITIES: Record<string, City> = {
  prague: {
    name: 'Prague',
    countryCode: 'CZ',
    country: 'Czechia',
    lat: 50.0755381,
    lng: 14.4378005,
    state: null,
    postalCodes: ['110 00', '120 00', '130 00', '150 00', '170 00', '186 00'],
    neighborhoods: [
      'Nové Město',
      'Staré Město',
      'Vinohrady',
      'Žižkov',
      'Holešovice',
      'Karlín',
      'Smíchov',
    ],
    streets: [
      'Národní',
      'Vodičkova',
      'Korunní',
      'Seifertova',
      'Dělnická',
      'Sokolovská',
      'Štefánikova',
      'Jugoslávská',
      'Mánesova',
      'Dlouhá',
      'Milady Horákové',
    ],
    phone: (random) =>
      `+420 ${random.int(600, 777)} ${random.int(100, 999)} ${random.int(100, 999)}`,
    currency: 'CZK',
    addressLine: (street, postalCode, neighborhood) =>
      `${street}, ${postalCode} Praha-${neighborhood}, Czechia`,
  },
  berlin: {
    name: 'Berlin',
    countryCode: 'DE',
    country: 'Germany',
    lat: 52.5200066,
    lng: 13.404954,
    state: null,
    postalCodes: ['10115', '10119', '10178', '10245', '10405', '10437', '10967', '10999', '12047'],
    neighborhoods: [
      'Mitte',
      'Kreuzberg',
      'Prenzlauer Berg',
      'Friedrichshain',
      'Neukölln',
      'Charlottenburg',
    ],
    streets: [
      'Oranienstraße',
      'Torstraße',
      'Kastanienallee',
      'Bergmannstraße',
      'Weserstraße',
      'Kantstraße',
      'Simon-Dach-Straße',
      'Schönhauser Allee',
    ],
    phone: (random) => `+49 30 ${digits(random, 8)}`,
    currency: '€',
    addressLine: (street, postalCode) => `${street}, ${postalCode} Berlin, Germany`,
  },
  vienna: {
    name: 'Vienna',
    countryCode: 'AT',
    country: 'Austria',
    lat: 48.2081743,
    lng: 16.3738189,
    state: null,
    postalCodes: ['1010', '1020', '1040', '1050', '1060', '1070', '1080', '1090'],
    neighborhoods: [
      'Innere Stadt',
      'Leopoldstadt',
      'Wieden',
      'Margareten',
      'Mariahilf',
      'Neubau',
      'Josefstadt',
      'Alsergrund',
    ],
    streets: [
      'Kärntner Straße',
      'Neubaugasse',
      'Praterstraße',
      'Josefstädter Straße',
      'Mariahilfer Straße',
      'Schönbrunner Straße',
      'Burggasse',
      'Porzellangasse',
    ],
    phone: (random) => `+43 1 ${digits(random, 7)}`,
    currency: '€',
    addressLine: (street, postalCode) => `${street}, ${postalCode} Wien, Austria`,
  },
};

interface Vertical {
  search: string;
  mainCategories: string[];
  extraCategories: string[];
  names: (random: Random, city: City) => string;
  prices: (city: City) => string[];
  reviewTags: string[];
  reviewSentences: string[];
  slots: Record<string, string[]>;
  descriptions: string[];
  /** Hour of the day the place is busiest. */
  peakHour: number;
}

const COFFEE: Vertical = {
  search: 'coffee',
  mainCategories: ['Coffee shop', 'Cafe', 'Espresso bar', 'Coffee roasters'],
  extraCategories: [
    'Breakfast restaurant',
    'Bakery',
    'Brunch restaurant',
    'Dessert shop',
    'Cake shop',
    'Tea house',
  ],
  names: (random) =>
    random.pick([
      () =>
        `Café ${random.pick(['Blau', 'Louvre', 'Nordic', 'Lumen', 'Ema', 'Orbit', 'Paleta', 'Sirup', 'Kolo'])}`,
      () =>
        `${random.pick(['Little', 'Good', 'Slow', 'Black', 'Second', 'Wild', 'Quiet'])} ${random.pick(['Fox', 'Bird', 'Bean', 'Owl', 'Cup', 'Crow', 'Harbour'])} Coffee`,
      () =>
        `${random.pick(['Onesip', 'Muj šálek', 'Kaffee Alt', 'Bonanza', 'Father', 'Mama'])} ${random.pick(['Coffee', 'Roasters', 'Espresso Bar', 'Kaffeebar'])}`,
    ])(),
  prices: (city) => (city.currency === 'CZK' ? ['CZK 1–200', 'CZK 200–400'] : ['€1–10', '€10–20']),
  reviewTags: [
    'espresso',
    'flat white',
    'cake',
    'croissant',
    'brunch',
    'beans',
    'laptop',
    'barista',
    'oat milk',
    'cheesecake',
    'prices',
    'terrace',
  ],
  reviewSentences: [
    'The {drink} was one of the best I have had in {city}.',
    'We stopped by for breakfast on a {day} morning and it was already busy.',
    'Friendly staff, quick service and a lovely calm atmosphere.',
    'Great place to work on a laptop for a couple of hours, the Wi-Fi is fast.',
    'The {pastry} was fresh and not too sweet.',
    'Prices are a bit higher than in other cafés nearby, but the quality is worth it.',
    'Seating is limited, so come early if you want a table by the window.',
    'They roast their own beans and you can buy a bag to take home.',
    'The barista took time to explain the single origin options to us.',
    'Music was a little loud for my taste.',
    'Oat milk costs extra, which I found annoying.',
    'Cozy interior with lots of plants and natural light.',
    'I come here almost every {day} and it has never disappointed.',
    'Service was slow when we visited, probably because they were short on staff.',
    'Highly recommend the {pastry} with a {drink}.',
    'Card payments only, no cash.',
    'Nice terrace in summer, quite crowded on weekends.',
    'The filter coffee changes every week and is always interesting.',
  ],
  slots: {
    drink: [
      'flat white',
      'cortado',
      'espresso',
      'cappuccino',
      'V60 filter',
      'iced latte',
      'chai latte',
    ],
    pastry: [
      'cinnamon roll',
      'croissant',
      'banana bread',
      'carrot cake',
      'cheesecake',
      'almond croissant',
    ],
    day: ['Monday', 'Tuesday', 'Saturday', 'Sunday'],
  },
  descriptions: [
    'Relaxed café serving specialty coffee, homemade cakes and light breakfasts in a bright space.',
    'Small roastery with a tasting bar, pour-overs and seasonal espresso blends.',
    'Neighbourhood coffee shop with pastries baked in house and a sunny terrace.',
  ],
  peakHour: 10,
};

const RESTAURANTS: Vertical = {
  search: 'restaurant',
  mainCategories: [
    'Restaurant',
    'Italian restaurant',
    'Austrian restaurant',
    'Vietnamese restaurant',
    'Pizza restaurant',
    'Vegetarian restaurant',
    'Bistro',
    'Steak house',
    'Sushi restaurant',
    'Indian restaurant',
  ],
  extraCategories: [
    'Bar',
    'Wine bar',
    'Brunch restaurant',
    'European restaurant',
    'Fine dining restaurant',
    'Lunch restaurant',
    'Takeout restaurant',
  ],
  names: (random) =>
    random.pick([
      () => `Trattoria da ${random.pick(['Marco', 'Giulia', 'Enzo', 'Luca', 'Sofia'])}`,
      () =>
        `Gasthaus ${random.pick(['Pöschl', 'Zur Linde', 'Rebhuhn', 'Sonne', 'Schwarzer Adler'])}`,
      () => `Phở ${random.pick(['Hà Nội', 'Sài Gòn', 'Việt', 'Bistro', 'Long'])}`,
      () =>
        `${random.pick(['Salt', 'Olive', 'Fig', 'Copper', 'Ember', 'Linden'])} & ${random.pick(['Vine', 'Stone', 'Smoke', 'Table', 'Thyme'])}`,
      () => `Sushi ${random.pick(['Ken', 'Mori', 'Yume', 'Hana', 'Tokyo'])}`,
      () =>
        `${random.pick(['Maharaja', 'Tandoor', 'Curry'])} ${random.pick(['Palace', 'House', 'Garden'])}`,
    ])(),
  prices: (city) =>
    city.currency === 'CZK'
      ? ['CZK 200–400', 'CZK 400–600', 'CZK 600–800']
      : ['€10–20', '€20–30', '€30–50'],
  reviewTags: [
    'schnitzel',
    'pasta',
    'tiramisu',
    'wine list',
    'reservation',
    'portions',
    'pho',
    'service',
    'dessert',
    'terrace',
    'lunch menu',
    'steak',
  ],
  reviewSentences: [
    'We had the {dish} and it was cooked perfectly.',
    'Portions are generous and the prices are fair for the area.',
    'Our waiter recommended a {wine} that went really well with the food.',
    'Booking ahead is a must on {day} evenings.',
    'The lunch menu is great value, soup and main for a very reasonable price.',
    'Service was attentive without being intrusive.',
    'The {dish} was a bit too salty for me, otherwise a good experience.',
    'Lovely atmosphere, perfect for a date night.',
    'We waited almost forty minutes for our mains, which was disappointing.',
    'The dessert menu is small but the {dessert} is outstanding.',
    'Vegetarian options are clearly marked and there is more than one choice.',
    'The room gets loud when it is full, so it is not ideal for a business dinner.',
    'Staff spoke English and German and were happy to explain the menu.',
    'I have been coming here for years and the quality has stayed consistent.',
    'Good selection of local beers on tap.',
    'They added a service charge to the bill without asking, which felt unnecessary.',
    'The {dish} alone is worth the visit.',
    'Kids were welcome and they brought crayons without us asking.',
  ],
  slots: {
    dish: [
      'Wiener Schnitzel',
      'beef tartare',
      'pho bo',
      'tagliatelle al ragù',
      'duck confit',
      'butter chicken',
      'ramen',
      'goulash',
    ],
    wine: ['Grüner Veltliner', 'Zweigelt', 'Riesling', 'Chianti', 'Blaufränkisch'],
    dessert: ['tiramisu', 'Kaiserschmarrn', 'apple strudel', 'panna cotta', 'chocolate fondant'],
    day: ['Friday', 'Saturday', 'Sunday'],
  },
  descriptions: [
    'Classic dishes served in a wood-panelled dining room with a garden terrace.',
    'Informal spot for handmade pasta, natural wines and a daily lunch menu.',
    'Family-run restaurant known for generous portions and a long wine list.',
  ],
  peakHour: 19,
};

export interface PlacesOptions {
  city: keyof typeof CITIES;
  vertical: 'coffee' | 'restaurant';
  count: number;
  /** `maxReviews` of the scraper input; 0 (the default) leaves `reviews` empty. */
  reviewsPerPlace: number;
}

/** Dataset items of one Google Maps search, with the scraper's default paginated envelope. */
export function googleMapsPlaces(random: Random, options: PlacesOptions): JsonObject {
  const city = CITIES[options.city]!;
  const vertical = options.vertical === 'coffee' ? COFFEE : RESTAURANTS;
  const scrapedStart = CORPUS_NOW - random.int(1, 6) * HOUR - random.int(0, HOUR);
  const searchPageUrl = `https://www.google.com/maps/search/${encodeURIComponent(vertical.search)}/@${city.lat},${city.lng},13z?hl=en`;
  const items = Array.from({ length: options.count }, (_, index) =>
    place(
      random,
      city,
      vertical,
      index + 1,
      scrapedStart + index * random.int(2, 9) * 1000,
      searchPageUrl,
      options.reviewsPerPlace,
    ),
  );
  return {
    total: options.count,
    offset: 0,
    limit: options.count,
    desc: false,
    count: items.length,
    items,
  };
}

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

function place(
  random: Random,
  city: City,
  vertical: Vertical,
  rank: number,
  scrapedAtMs: number,
  searchPageUrl: string,
  reviewsPerPlace: number,
): JsonObject {
  const title = vertical.names(random, city);
  const neighborhood = random.pick(city.neighborhoods);
  const street = `${random.pick(city.streets)} ${random.int(1, 120)}`;
  const postalCode = random.pick(city.postalCodes);
  const phone = random.chance(0.9) ? city.phone(random) : null;
  const lat = round(city.lat + random.float(-0.03, 0.03), 7);
  const lng = round(city.lng + random.float(-0.05, 0.05), 7);
  const placeId = `ChIJ${random.string(URL_SAFE, 23)}`;
  const fidHigh = `0x${hex(random, 16)}`;
  const fidLow = `0x${hex(random, 16)}`;
  const reviewsCount = Math.max(3, Math.round(random.logNormal(420, 1.2)));
  const distribution = starDistribution(random, random.float(3.9, 4.9), reviewsCount);
  const totalScore = round(
    (distribution.oneStar +
      2 * distribution.twoStar +
      3 * distribution.threeStar +
      4 * distribution.fourStar +
      5 * distribution.fiveStar) /
      reviewsCount,
    1,
  );
  const category = random.pick(vertical.mainCategories);
  const categories = [
    category,
    ...random.sample(
      vertical.extraCategories.filter((c) => c !== category),
      random.int(0, 3),
    ),
  ];
  const website = random.chance(0.8)
    ? `https://www.${title
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '')}.${city.countryCode.toLowerCase()}/`
    : null;
  const hasLiveData = random.chance(0.3);
  const hasHistogram = reviewsCount > 60 && random.chance(0.85);
  const openingHours = weeklyHours(random, vertical);

  return {
    title,
    subTitle: null,
    description: random.chance(0.4) ? random.pick(vertical.descriptions) : null,
    price: random.chance(0.75) ? random.pick(vertical.prices(city)) : null,
    categoryName: category,
    address: city.addressLine(street, postalCode, neighborhood),
    neighborhood: random.chance(0.7) ? neighborhood : null,
    street,
    city: city.name,
    postalCode,
    state: city.state,
    countryCode: city.countryCode,
    website,
    phone,
    phoneUnformatted: phone === null ? null : phone.replace(/ /g, ''),
    claimThisBusiness: random.chance(0.08),
    location: { lat, lng },
    locatedIn: random.chance(0.12)
      ? random.pick([
          'Palladium',
          'Bikini Berlin',
          'Westfield Chodov',
          'Hauptbahnhof',
          'MuseumsQuartier',
        ])
      : null,
    plusCode: `${random.string('23456789CFGHJMPQRVWX', 4)}+${random.string('23456789CFGHJMPQRVWX', 2)} ${neighborhood}, ${city.name}, ${city.country}`,
    menu: website !== null && random.chance(0.35) ? `${website}menu` : null,
    totalScore,
    permanentlyClosed: false,
    temporarilyClosed: random.chance(0.03),
    placeId,
    categories,
    fid: `${fidHigh}:${fidLow}`,
    cid: BigInt(fidLow).toString(),
    reviewsCount,
    reviewsDistribution: distribution,
    imagesCount: Math.round(random.logNormal(reviewsCount * 0.6, 0.5)),
    imageCategories: random.sample(
      ['All', 'Menu', 'Food & drink', 'Vibe', 'By owner', 'Street View & 360°', 'Videos', 'Latest'],
      random.int(3, 7),
    ),
    scrapedAt: iso(scrapedAtMs),
    reserveTableUrl:
      vertical === RESTAURANTS && random.chance(0.3)
        ? `https://www.google.com/maps/reserve/v/dine/c/${random.string(URL_SAFE, 11)}?source=pa&hl=en-US&gei=${random.string(URL_SAFE, 22)}`
        : null,
    googleFoodUrl:
      vertical === RESTAURANTS && random.chance(0.2)
        ? `https://food.google.com/chooseprovider?restaurantId=/g/11${random.string('abcdefghijklmnopqrstuvwxyz0123456789_', 9)}&g2lbs=${random.string(URL_SAFE, 40)}&hl=en-US&gl=${city.countryCode.toLowerCase()}`
        : null,
    hotelStars: null,
    hotelDescription: null,
    checkInDate: null,
    checkOutDate: null,
    similarHotelsNearby: null,
    hotelReviewSummary: null,
    hotelAds: [],
    popularTimesLiveText: hasLiveData
      ? random.pick([
          'Usually not too busy',
          'Usually a little busy',
          'Less busy than usual',
          'As busy as it gets',
          'Busier than usual',
        ])
      : null,
    popularTimesLivePercent: hasLiveData ? random.int(5, 95) : null,
    popularTimesHistogram: hasHistogram ? popularTimes(random, vertical, openingHours) : null,
    openingHours,
    peopleAlsoSearch: random.chance(0.85)
      ? Array.from({ length: 4 }, () => ({
          category: 'People also search for',
          title: vertical.names(random, city),
          reviewsCount: Math.round(random.logNormal(350, 1.1)),
          totalScore: round(random.float(4, 4.9), 1),
        }))
      : [],
    placesTags: [],
    reviewsTags: random.sample(vertical.reviewTags, random.int(4, 10)).map((tag) => ({
      title: tag,
      count: Math.round(random.logNormal(reviewsCount * 0.04, 0.6)) + 1,
    })),
    additionalInfo: additionalInfo(random, vertical),
    gasPrices: [],
    questionsAndAnswers: [],
    updatesFromCustomers: null,
    ownerUpdates: [],
    webResults: [],
    tableReservationLinks: [],
    bookingLinks: [],
    orderBy:
      vertical === RESTAURANTS && random.chance(0.4)
        ? random
            .sample(['Wolt', 'foodora', 'Lieferando', 'Bolt Food'], random.int(1, 2))
            .map((name) => ({
              name,
              url: `https://${name.toLowerCase().replace(/ /g, '')}.com/en/${city.countryCode.toLowerCase()}/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`,
            }))
        : [],
    restaurantData: {},
    url: `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(title)}&query_place_id=${placeId}`,
    searchPageUrl,
    searchString: vertical.search,
    language: 'en',
    rank,
    isAdvertisement: false,
    imageUrl: random.chance(0.5)
      ? `https://lh3.googleusercontent.com/p/AF1Qip${random.string(URL_SAFE, 38)}=w408-h306-k-no`
      : `https://lh3.googleusercontent.com/gps-cs-s/AC9h4n${random.string(URL_SAFE, 128)}=w408-h272-k-no`,
    kgmid: `/g/11${random.string('abcdefghijklmnopqrstuvwxyz0123456789_', 9)}`,
    reviews: Array.from({ length: Math.min(reviewsPerPlace, reviewsCount) }, () =>
      review(random, vertical, city, fidLow),
    ),
    userPlaceNote: null,
    imageUrls: [],
  };
}

/** Star counts whose mean is close to `score`, summing exactly to `count`. */
function starDistribution(
  random: Random,
  score: number,
  count: number,
): JsonObject & Record<'oneStar' | 'twoStar' | 'threeStar' | 'fourStar' | 'fiveStar', number> {
  // Weights proportional to exp(alpha * stars); find alpha whose mean hits the score.
  let low = -5;
  let high = 5;
  for (let i = 0; i < 40; i++) {
    const alpha = (low + high) / 2;
    const weights = [1, 2, 3, 4, 5].map((s) => Math.exp(alpha * s));
    const mean =
      weights.reduce((sum, w, i) => sum + w * (i + 1), 0) / weights.reduce((a, b) => a + b, 0);
    if (mean < score) low = alpha;
    else high = alpha;
  }
  const weights = [1, 2, 3, 4, 5].map((s) => Math.exp(low * s) * random.float(0.85, 1.15));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((w / sum) * count));
  counts[4]! += count - counts.reduce((a, b) => a + b, 0);
  return {
    oneStar: counts[0]!,
    twoStar: counts[1]!,
    threeStar: counts[2]!,
    fourStar: counts[3]!,
    fiveStar: counts[4]!,
  };
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** "8 AM", "10:30 PM", with the narrow no-break space Google Maps puts before AM/PM. */
function clock(hour: number): string {
  const whole = Math.floor(hour);
  const minutes = Math.round((hour - whole) * 60);
  const suffix = whole % 24 >= 12 ? 'PM' : 'AM';
  const h12 = whole % 12 === 0 ? 12 : whole % 12;
  return `${h12}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}\u202f${suffix}`;
}

function weeklyHours(random: Random, vertical: Vertical): JsonObject[] {
  const open = vertical === COFFEE ? random.pick([7, 7.5, 8, 9]) : random.pick([11, 11.5, 12, 17]);
  const close = vertical === COFFEE ? random.pick([17, 18, 19, 20]) : random.pick([22, 22.5, 23]);
  const closedDay = random.chance(0.4) ? random.pick(['Monday', 'Sunday']) : null;
  return DAYS.map((day) => {
    const weekend = day === 'Saturday' || day === 'Sunday';
    const hours =
      day === closedDay
        ? 'Closed'
        : `${clock(weekend && vertical === COFFEE ? open + 1 : open)} to ${clock(close)}`;
    return { day, hours };
  });
}

function popularTimes(random: Random, vertical: Vertical, hours: JsonObject[]): JsonObject {
  const histogram: JsonObject = {};
  const keys = ['Su', 'Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa'];
  const dayNames = ['Sunday', ...DAYS.slice(0, 6)];
  keys.forEach((key, index) => {
    const closed = hours.find((entry) => entry['day'] === dayNames[index])?.['hours'] === 'Closed';
    const busiest = random.float(0.6, 1);
    histogram[key] = closed
      ? []
      : Array.from({ length: 18 }, (_, i) => {
          const hour = i + 6;
          const distance = Math.abs(hour - vertical.peakHour);
          const level = Math.max(
            0,
            busiest * Math.exp(-(distance * distance) / 10) * 100 + random.float(-6, 6),
          );
          return { hour, occupancyPercent: Math.round(level) };
        });
  });
  return histogram;
}

const INFO_SECTIONS: Record<string, string[]> = {
  'Service options': [
    'Outdoor seating',
    'Curbside pickup',
    'No-contact delivery',
    'Delivery',
    'Takeout',
    'Dine-in',
  ],
  Highlights: [
    'Fast service',
    'Great coffee',
    'Great tea selection',
    'Great wine list',
    'Live music',
    'Rooftop seating',
  ],
  'Popular for': ['Breakfast', 'Lunch', 'Dinner', 'Solo dining', 'Good for working on laptop'],
  Accessibility: [
    'Wheelchair accessible entrance',
    'Wheelchair accessible restroom',
    'Wheelchair accessible seating',
  ],
  Offerings: [
    'Alcohol',
    'Beer',
    'Coffee',
    'Vegetarian options',
    'Vegan options',
    'Wine',
    'Small plates',
    'Quick bite',
    'Organic dishes',
  ],
  'Dining options': ['Breakfast', 'Brunch', 'Lunch', 'Dinner', 'Dessert', 'Seating'],
  Amenities: ['Restroom', 'Wi-Fi', 'Free Wi-Fi', 'Bar onsite'],
  Atmosphere: ['Casual', 'Cozy', 'Trendy', 'Quiet', 'Romantic'],
  Crowd: ['Family-friendly', 'Groups', 'LGBTQ+ friendly', 'Tourists', 'University students'],
  Planning: ['Accepts reservations', 'Reservations required', 'Usually a wait'],
  Payments: ['Credit cards', 'Debit cards', 'NFC mobile payments'],
  Children: ['Good for kids', 'High chairs', "Kids' menu"],
  Parking: ['Paid street parking', 'Free street parking', 'Paid parking lot'],
  Pets: ['Dogs allowed'],
};

/** Sections and their attributes differ from place to place, as Google shows what owners filled in. */
function additionalInfo(random: Random, vertical: Vertical): JsonObject {
  const info: JsonObject = {};
  const names = Object.keys(INFO_SECTIONS);
  const chosen = random.sample(names, random.int(5, names.length));
  for (const name of names) {
    if (!chosen.includes(name)) continue;
    const attributes = random.sample(
      INFO_SECTIONS[name]!,
      random.int(1, INFO_SECTIONS[name]!.length),
    );
    info[name] = attributes.map((attribute) => ({
      [attribute]: random.chance(vertical === COFFEE ? 0.92 : 0.88),
    }));
  }
  return info;
}

function relativeAge(ms: number): string {
  const days = (CORPUS_NOW - ms) / DAY;
  if (days < 1) return `${Math.max(1, Math.round(days * 24))} hours ago`;
  if (days < 7) return days < 2 ? 'a day ago' : `${Math.round(days)} days ago`;
  if (days < 30) return days < 14 ? 'a week ago' : `${Math.round(days / 7)} weeks ago`;
  if (days < 365) return days < 60 ? 'a month ago' : `${Math.round(days / 30)} months ago`;
  return days < 730 ? 'a year ago' : `${Math.round(days / 365)} years ago`;
}

function review(random: Random, vertical: Vertical, city: City, fidLow: string): JsonObject {
  const stars = random.weighted([
    [5, 60],
    [4, 22],
    [3, 8],
    [2, 4],
    [1, 6],
  ] as const);
  const publishedMs =
    CORPUS_NOW - Math.round(random.logNormal(90 * DAY, 1.4)) - random.int(0, HOUR);
  const reviewId = `Ci9DQUlRQUNvZENodHljRjlv${random.string(URL_SAFE, random.int(24, 40))}`;
  const reviewerId = digits(random, 21);
  const text = random.chance(0.82)
    ? sentences(
        random,
        vertical.reviewSentences,
        random.weighted([
          [1, 20],
          [2, 30],
          [3, 25],
          [4, 15],
          [6, 10],
        ] as const),
        {
          ...vertical.slots,
          city: [city.name],
        },
      )
    : null;
  const ownerReplied = random.chance(0.25);
  return {
    name: personName(random),
    text,
    textTranslated: null,
    publishAt: relativeAge(publishedMs),
    publishedAtDate: iso(publishedMs),
    likesCount: random.chance(0.7) ? 0 : random.int(1, 14),
    reviewId,
    reviewUrl: `https://www.google.com/maps/reviews/data=!4m8!14m7!1m6!2m5!1s${reviewId}!2m1!1s0x0:${fidLow}!3m1!1s2@1:${reviewId}%7C${random.string(URL_SAFE, 11)}%7C?hl=en`,
    reviewerId,
    reviewerUrl: `https://www.google.com/maps/contrib/${reviewerId}?hl=en`,
    reviewerPhotoUrl: `https://lh3.googleusercontent.com/a-/ALV-Uj${random.string(URL_SAFE, 72)}=s120-c-rp-mo${random.chance(0.4) ? '-ba4' : ''}-br100`,
    reviewerNumberOfReviews: Math.round(random.logNormal(25, 1.4)),
    isLocalGuide: random.chance(0.45),
    reviewOrigin: 'Google',
    stars,
    rating: null,
    responseFromOwnerDate: ownerReplied
      ? iso(publishedMs + Math.round(random.logNormal(2 * DAY, 1)))
      : null,
    responseFromOwnerText: ownerReplied
      ? random.pick([
          'Thank you so much for your kind words, we hope to see you again soon!',
          'Thank you for the feedback. We are sorry the wait was longer than usual and we are working on it.',
          `Dear ${random.pick(['guest', 'customer'])}, thank you for visiting us and taking the time to write a review.`,
        ])
      : null,
    reviewImageUrls: random.chance(0.2)
      ? Array.from(
          { length: random.int(1, 3) },
          () => `https://lh3.googleusercontent.com/geougc-cs/AB3l90${random.string(URL_SAFE, 96)}`,
        )
      : [],
    reviewContext: random.chance(0.5)
      ? {
          Service: random.pick(['Dine in', 'Take out']),
          'Meal type': random.pick(
            vertical === COFFEE ? ['Breakfast', 'Brunch', 'Other'] : ['Lunch', 'Dinner'],
          ),
          'Price per person': random.pick(vertical.prices(city)),
        }
      : {},
    reviewDetailedRating: random.chance(0.5)
      ? {
          Food: Math.min(5, stars + random.int(0, 1)),
          Service: Math.max(1, stars - random.int(0, 1)),
          Atmosphere: stars,
        }
      : {},
    visitedIn: random.chance(0.3)
      ? random.pick(['Visited in March', 'Visited in April', 'Visited on a weekday'])
      : null,
    originalLanguage: 'en',
    translatedLanguage: null,
  };
}
