// Dataset items of the Instagram scrapers: profiles (apify/instagram-scraper, details) with their
// latest posts nested, and posts (apify/instagram-post-scraper). Field sets differ by post type
// (video fields, `childPosts` on carousels, `musicInfo` on some reels, `taggedUsers` on some),
// captions carry emoji and hashtags, and CDN URLs are long: heterogeneous, prose- and URL-heavy.
import type { Random } from './random.js';
import { CORPUS_NOW, DAY, digits, HOUR, hex, iso, personName } from './text.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

interface Account {
  username: string;
  fullName: string;
  id: string;
  theme: Theme;
  verified: boolean;
  followers: number;
}

interface Theme {
  bios: string[];
  captions: string[];
  hashtags: string[];
  emoji: string[];
  comments: string[];
  alt: string[];
  category: string;
}

const THEMES: Record<string, Theme> = {
  coffee: {
    bios: [
      'Specialty coffee roasters ☕️ Vienna · Prague',
      'Small batch roasting since 2014\nWholesale: hello@example.com',
      'Brewing guides every Tuesday ⬇️',
    ],
    captions: [
      'New single origin just landed from the Huila region.',
      'Our head roaster walks you through a V60 recipe in three minutes.',
      'Sunday mornings look like this.',
      'We are hiring baristas for the new shop in Neubau, link in bio.',
      'Washed, natural or honey process? Tell us your favourite in the comments.',
      'Latte art throwdown recap, thank you to everyone who came!',
      'Fresh croissants out of the oven every morning at 8.',
      'Limited release: Ethiopia Guji, notes of peach, jasmine and black tea.',
      'Behind the scenes at the roastery.',
      'Your weekend brew guide: 15 g coffee, 250 g water, 93 °C, 2:45 total.',
    ],
    hashtags: [
      'specialtycoffee',
      'coffeeroasters',
      'v60',
      'latteart',
      'vienna',
      'prague',
      'coffeetime',
      'baristalife',
      'pourover',
      'coffeelover',
      'flatwhite',
      'espresso',
    ],
    emoji: ['☕️', '🌱', '✨', '🔥', '🥐', '❤️', '👇'],
    comments: [
      'Looks amazing!',
      'Best coffee in town 😍',
      'Do you ship to Germany?',
      'What grinder do you use?',
      'Need to visit again soon',
      'That crema 🔥',
      'Is the shop open on Sundays?',
      '🙌🙌',
      'Tried it yesterday, so good',
    ],
    alt: [
      'a cup of coffee on a wooden table',
      'latte art in a white cup',
      'coffee beans in a roaster',
      'people sitting in a café',
    ],
    category: 'Coffee shop',
  },
  outdoor: {
    bios: [
      'Trail runner · mountain photographer 🏔️\nAustrian Alps',
      'Hiking routes and gear reviews\nNew video every Friday',
      'Adventures on foot and by train 🚆',
    ],
    captions: [
      'Sunrise on the Rax plateau was worth the 4 am alarm.',
      'Route of the week: 18 km through the Vienna Woods, full GPX on the blog.',
      'Three things I always pack, even for short hikes.',
      'First snow on the Schneeberg this morning.',
      'Trying out new trail shoes, full review coming soon.',
      'The train ride is part of the adventure.',
      'Foggy forest days are underrated.',
      'Summit number 27 of the year!',
      'How do you carry water on long runs? Bottles or a bladder?',
      'A quiet lake, a thermos of tea and no phone signal.',
    ],
    hashtags: [
      'hiking',
      'trailrunning',
      'austria',
      'alps',
      'wienerwald',
      'mountains',
      'outdoors',
      'naturelovers',
      'hikingadventures',
      'optoutside',
      'getoutside',
    ],
    emoji: ['🏔️', '🌲', '☀️', '🥾', '💪', '🌄', '📍'],
    comments: [
      'Stunning view!',
      'Which trail is this?',
      'Adding this to my list',
      'Wow 😍',
      'How long did it take?',
      'Those colours 🔥',
      'Great shot',
      'Was it busy up there?',
      'Love this place',
    ],
    alt: [
      'a mountain landscape at sunrise',
      'a person hiking on a forest trail',
      'snow-covered peaks under a blue sky',
      'a lake surrounded by trees',
    ],
    category: 'Athlete',
  },
  food: {
    bios: [
      'Eating my way through Prague 🍜\nReviews · tips · hidden gems',
      'Food photographer & recipe developer\nCollabs: DM',
      'Weeknight dinners in 30 minutes or less',
    ],
    captions: [
      'This pho might be the best in the city, the broth simmers for 14 hours.',
      'Easy weeknight pasta with lemon, garlic and way too much parmesan.',
      'Where to eat in Karlín: my updated list.',
      'Brunch spot of the month, the pancakes are huge.',
      'Recipe in the comments by popular request!',
      'Trying every schnitzel in town so you do not have to.',
      'Street food market is back this weekend.',
      'Homemade dumplings, a family recipe.',
      'New opening alert: small Georgian bakery near the river.',
      'Three-ingredient dessert that always works.',
    ],
    hashtags: [
      'foodie',
      'prague',
      'praguefood',
      'foodphotography',
      'instafood',
      'brunch',
      'homecooking',
      'pho',
      'streetfood',
      'recipeoftheday',
      'eeeeeats',
    ],
    emoji: ['🍜', '😋', '🍝', '🥟', '📍', '🔥', '👩‍🍳'],
    comments: [
      'Need this recipe!',
      'Going there this weekend',
      'Looks delicious 😍',
      'How spicy is it?',
      'Saving this',
      'Yum!!',
      'Is it vegetarian friendly?',
      '🤤🤤',
      'Great recommendation, thanks',
    ],
    alt: [
      'a bowl of noodle soup',
      'pasta on a plate',
      'dumplings on a wooden board',
      'a table with several dishes',
    ],
    category: 'Blogger',
  },
};

function account(random: Random, theme: Theme, username: string): Account {
  return {
    username,
    fullName: random.chance(0.5)
      ? personName(random)
      : username.replace(/[._]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
    id: digits(random, random.int(8, 11)),
    theme,
    verified: random.chance(0.2),
    followers: Math.round(random.logNormal(24_000, 1.3)),
  };
}

function cdnUrl(random: Random, kind: 'image' | 'video' | 'profile'): string {
  const host = `scontent-${random.pick(['vie1-1', 'prg1-1', 'fra5-1', 'fra3-2'])}.cdninstagram.com`;
  const path =
    kind === 'video'
      ? `/o1/v/t16/f2/m86/${random.string(URL_SAFE, 60)}.mp4`
      : kind === 'profile'
        ? `/v/t51.2885-19/${digits(random, 9)}_${digits(random, 17)}_${digits(random, 19)}_n.jpg`
        : `/v/t51.29350-15/${digits(random, 9)}_${digits(random, 17)}_${digits(random, 19)}_n.jpg`;
  const first =
    kind === 'video'
      ? `efg=${random.string(ALNUM, 64)}`
      : `stp=${kind === 'profile' ? 'dst-jpg_s150x150_tt6' : 'dst-jpg_e35_p1080x1080_sh0.08_tt6'}`;
  return `https://${host}${path}?${first}&_nc_ht=${host}&_nc_cat=1${random.int(0, 9)}${random.int(0, 9)}&_nc_oc=Q6cZ2Q${random.string(URL_SAFE, 48)}&_nc_ohc=${random.string(URL_SAFE, 11)}&_nc_gid=${random.string(URL_SAFE, 22)}&edm=APs17CUBAAAA&ccb=7-5&oh=00_Af${random.string(URL_SAFE, 40)}&oe=${hex(random, 8).toUpperCase()}&_nc_sid=${hex(random, 6)}`;
}

function caption(
  random: Random,
  theme: Theme,
): { text: string; hashtags: string[]; mentions: string[] } {
  const body = random.sample(
    theme.captions,
    random.weighted([
      [1, 45],
      [2, 35],
      [3, 20],
    ] as const),
  );
  const hashtags = random.chance(0.75) ? random.sample(theme.hashtags, random.int(2, 9)) : [];
  const mentions = random.chance(0.3)
    ? random.sample(
        ['ondrej.photo', 'visitvienna', 'prague.eats', 'trailcrew', 'studio.lumen', 'wien.info'],
        random.int(1, 2),
      )
    : [];
  const lines = body.map((sentence) =>
    random.chance(0.5) ? `${sentence} ${random.pick(theme.emoji)}` : sentence,
  );
  if (mentions.length) lines.push(`📸 ${mentions.map((m) => `@${m}`).join(' ')}`);
  let text = lines.join(random.chance(0.5) ? '\n\n' : ' ');
  if (hashtags.length) text += `\n.\n.\n${hashtags.map((h) => `#${h}`).join(' ')}`;
  return { text, hashtags, mentions };
}

function comment(random: Random, theme: Theme, postMs: number): JsonObject {
  const username = `${random.pick(['anna', 'jakub', 'lena', 'max', 'sofi', 'petr', 'mia', 'tom'])}${random.pick(['.', '_', ''])}${random.pick(['travels', 'eats', 'runs', 'vienna', 'cz', 'photo', String(random.int(1, 99))])}`;
  const id = digits(random, 17);
  const picture = cdnUrl(random, 'profile');
  return {
    id,
    text: random.pick(theme.comments),
    ownerUsername: username,
    ownerProfilePicUrl: picture,
    timestamp: isoSeconds(postMs + random.logNormal(5 * HOUR, 1.5)),
    repliesCount: random.chance(0.8) ? 0 : random.int(1, 3),
    replies: [],
    likesCount: random.chance(0.6) ? 0 : random.int(1, 40),
    owner: { id: digits(random, 11), is_verified: false, profile_pic_url: picture, username },
  };
}

interface PostOptions {
  /** Post scraper items carry `inputUrl` and more `latestComments` than a profile's latestPosts. */
  withInputUrl: boolean;
  maxComments: number;
}

function post(random: Random, owner: Account, postedMs: number, options: PostOptions): JsonObject {
  const type = random.weighted([
    ['Image', 40],
    ['Sidecar', 30],
    ['Video', 30],
  ] as const);
  const shortCode = `D${random.string(URL_SAFE, 10)}`;
  const { text, hashtags, mentions } = caption(random, owner.theme);
  const likesCount = Math.round(owner.followers * random.float(0.01, 0.08));
  const commentsCount = Math.round(likesCount * random.float(0.005, 0.04));
  const comments = Array.from({ length: Math.min(commentsCount, options.maxComments) }, () =>
    comment(random, owner.theme, postedMs),
  );
  const square = random.chance(0.4);
  const width = 1080;
  const height = type === 'Video' ? 1920 : square ? 1080 : 1350;
  const altText = `Photo by ${owner.fullName} on ${longDate(postedMs)}. May be an image of ${random.pick(owner.theme.alt)}.`;
  const item: JsonObject = {};
  if (options.withInputUrl) item['inputUrl'] = `https://www.instagram.com/${owner.username}/`;
  Object.assign(item, {
    id: digits(random, 19),
    type,
    shortCode,
    caption: text,
    hashtags,
    mentions,
    url: `https://www.instagram.com/p/${shortCode}/`,
    commentsCount,
    firstComment: comments.length ? (comments[0]!['text'] as string) : '',
    latestComments: comments,
    dimensionsHeight: height,
    dimensionsWidth: width,
    displayUrl: cdnUrl(random, 'image'),
    images:
      type === 'Sidecar'
        ? Array.from({ length: random.int(2, 6) }, () => cdnUrl(random, 'image'))
        : [],
  });
  if (type === 'Video') item['videoUrl'] = cdnUrl(random, 'video');
  item['alt'] = type === 'Video' ? null : altText;
  item['likesCount'] = likesCount;
  if (type === 'Video') {
    item['videoViewCount'] = Math.round(likesCount * random.float(8, 30));
    item['videoPlayCount'] = Math.round(likesCount * random.float(20, 60));
  }
  item['timestamp'] = isoSeconds(postedMs);
  item['childPosts'] =
    type === 'Sidecar'
      ? (item['images'] as string[]).map((imageUrl) => ({
          id: digits(random, 19),
          type: random.chance(0.85) ? 'Image' : 'Video',
          shortCode: `D${random.string(URL_SAFE, 10)}`,
          caption: '',
          hashtags: [],
          mentions: [],
          url: '',
          commentsCount: 0,
          firstComment: '',
          latestComments: [],
          dimensionsHeight: height,
          dimensionsWidth: width,
          displayUrl: imageUrl,
          images: [],
          alt: random.chance(0.6) ? altText : null,
          likesCount: null,
          timestamp: null,
          childPosts: [],
          ownerId: null,
        }))
      : [];
  item['ownerFullName'] = owner.fullName;
  item['ownerUsername'] = owner.username;
  item['ownerId'] = owner.id;
  item['productType'] =
    type === 'Video' ? 'clips' : type === 'Sidecar' ? 'carousel_container' : 'feed';
  if (type === 'Video') item['videoDuration'] = round3(random.float(6, 90));
  item['isSponsored'] = random.chance(0.05);
  if (type === 'Video' && random.chance(0.6)) {
    const original = random.chance(0.4);
    item['musicInfo'] = {
      artist_name: original
        ? owner.username
        : random.pick(['Bonobo', 'Tycho', 'ODESZA', 'Nils Frahm', 'Khruangbin']),
      song_name: original
        ? 'Original audio'
        : random.pick(['Kerala', 'Awake', 'A Moment Apart', 'Says', 'Maria También']),
      uses_original_audio: original,
      should_mute_audio: false,
      should_mute_audio_reason: '',
      audio_id: digits(random, 16),
    };
  }
  if (random.chance(0.25)) {
    item['taggedUsers'] = Array.from({ length: random.int(1, 3) }, () => ({
      full_name: personName(random),
      id: digits(random, 10),
      is_verified: random.chance(0.1),
      profile_pic_url: cdnUrl(random, 'profile'),
      username: `${random.pick(['eva', 'martin', 'julia', 'noah', 'klara'])}.${random.pick(['photo', 'outdoors', 'food', 'vienna'])}`,
    }));
  }
  return item;
}

/** Instagram reports times to the second. */
function isoSeconds(ms: number): string {
  return iso(Math.floor(ms / 1000) * 1000);
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "May 03, 2026", formatted by hand so the corpus does not depend on the ICU build. */
function longDate(ms: number): string {
  const date = new Date(ms);
  return `${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, '0')}, ${date.getUTCFullYear()}`;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

const HANDLES: Record<string, string[]> = {
  coffee: ['vienna.coffee.club', 'roestwerk.wien', 'kafe.kolo'],
  outdoor: ['trailrunner.anna', 'alpine.weekends', 'hike.austria'],
  food: ['prague_foodie', 'karlin.eats', 'weeknight.kitchen'],
};

export interface ProfilesOptions {
  themes: Array<keyof typeof THEMES>;
}

/** Profile details with the 12 latest posts nested, one item per profile. */
export function instagramProfiles(random: Random, options: ProfilesOptions): JsonObject {
  const items = options.themes.map((name, index) => {
    const theme = THEMES[name]!;
    const handles = HANDLES[name]!;
    const owner = account(random, theme, handles[index % handles.length]!);
    const externalUrl = `https://${owner.username.replace(/[._]/g, '')}.com/`;
    let cursor = CORPUS_NOW - random.int(2, 48) * HOUR;
    const latestPosts = Array.from({ length: 12 }, () => {
      cursor -= Math.round(random.logNormal(3 * DAY, 0.8));
      return post(random, owner, cursor, { withInputUrl: false, maxComments: 0 });
    });
    const picture = cdnUrl(random, 'profile');
    return {
      inputUrl: `https://www.instagram.com/${owner.username}/`,
      id: owner.id,
      username: owner.username,
      url: `https://www.instagram.com/${owner.username}`,
      fullName: owner.fullName,
      biography: random.pick(theme.bios),
      externalUrls: [
        {
          title: '',
          lynx_url: `https://l.instagram.com/?u=${encodeURIComponent(externalUrl)}&e=${random.string(URL_SAFE, 60)}`,
          url: externalUrl,
          link_type: 'external',
        },
      ],
      externalUrl,
      externalUrlShimmed: `https://l.instagram.com/?u=${encodeURIComponent(externalUrl)}&e=${random.string(URL_SAFE, 60)}&s=1`,
      followersCount: owner.followers,
      followsCount: random.int(80, 1400),
      hasChannel: false,
      highlightReelCount: random.int(0, 14),
      isBusinessAccount: random.chance(0.6),
      joinedRecently: false,
      businessCategoryName: random.chance(0.6) ? theme.category : 'None',
      private: false,
      verified: owner.verified,
      profilePicUrl: picture,
      profilePicUrlHD: picture.replace('s150x150', 's320x320'),
      igtvVideoCount: random.int(0, 6),
      relatedProfiles: [],
      latestIgtvVideos: [],
      postsCount: random.int(120, 2400),
      latestPosts,
      fbid: digits(random, 17),
    };
  });
  return {
    total: items.length,
    offset: 0,
    limit: items.length,
    desc: false,
    count: items.length,
    items,
  };
}

export interface PostsOptions {
  themes: Array<keyof typeof THEMES>;
  count: number;
}

/** Posts of one or more accounts, newest first, as the post scraper returns them. */
export function instagramPosts(random: Random, options: PostsOptions): JsonObject {
  const owners = options.themes.map((name, index) =>
    account(random, THEMES[name]!, HANDLES[name]![index % HANDLES[name]!.length]!),
  );
  const cursors = owners.map(() => CORPUS_NOW - random.int(2, 30) * HOUR);
  const items = Array.from({ length: options.count }, (_, index) => {
    const which = index % owners.length;
    cursors[which]! -= Math.round(random.logNormal(2.5 * DAY, 0.8));
    return post(random, owners[which]!, cursors[which]!, { withInputUrl: true, maxComments: 15 });
  });
  return {
    total: items.length,
    offset: 0,
    limit: items.length,
    desc: false,
    count: items.length,
    items,
  };
}
