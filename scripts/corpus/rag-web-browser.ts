// Dataset items of the RAG Web Browser (apify/rag-web-browser): one item per search result with
// `crawl`, `searchResult` and `metadata` objects and the page converted to Markdown. Prose is
// almost all of the bytes, so no encoding has much to remove here.
import type { Random } from './random.js';
import { base62, CORPUS_NOW, fill, iso, personName, slug } from './text.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Topic {
  query: string;
  sites: Array<{ host: string; titleSuffix: string }>;
  titles: string[];
  headings: string[];
  sentences: string[];
  bullets: string[];
  slots: Record<string, string[]>;
}

const SCRAPING: Topic = {
  query: 'how to avoid getting blocked when web scraping',
  sites: [
    { host: 'blog.apify.com', titleSuffix: ' | Apify Blog' },
    { host: 'www.scrapingbee.com', titleSuffix: ' - ScrapingBee' },
    { host: 'crawlee.dev', titleSuffix: ' | Crawlee' },
    { host: 'www.zenrows.com', titleSuffix: ' - ZenRows' },
    { host: 'dev.to', titleSuffix: ' - DEV Community' },
  ],
  titles: [
    'How to avoid getting blocked while scraping: {n} practical tips',
    'Web scraping without getting blocked in {year}',
    'Avoid being blocked: proxies, fingerprints and rate limits explained',
    'The complete guide to anti-bot protection for scrapers',
  ],
  headings: [
    'Rotate your IP addresses',
    'Use realistic browser fingerprints',
    'Respect rate limits',
    'Handle CAPTCHAs',
    'Set proper HTTP headers',
    'Use a headless browser only when you need one',
    'Retry with backoff',
    'Watch for honeypot links',
    'Cache what you already downloaded',
    'Conclusion',
    'Frequently asked questions',
  ],
  sentences: [
    'Most websites protect themselves against automated traffic, and the first signal they look at is the IP address.',
    'Sending hundreds of requests per minute from a single datacenter IP is the fastest way to get banned.',
    'Residential proxies are more expensive than datacenter proxies, but they are much harder to detect.',
    'A realistic browser fingerprint includes consistent headers, screen size, fonts and WebGL parameters.',
    'Anti-bot vendors such as {vendor} compare dozens of these signals and assign each session a risk score.',
    'If the score is too high, the site responds with a CAPTCHA, an empty page or a misleading 200 response.',
    'Headless browsers make it easier to render JavaScript-heavy pages, but they are slower and use more memory.',
    'For static pages a plain HTTP client with good headers is usually enough and ten times cheaper to run.',
    'Always check the robots.txt file and the terms of service before you start a large crawl.',
    'Spreading requests over time and over several sessions keeps your traffic pattern closer to that of real users.',
    'When a request fails, retry it later with exponential backoff instead of hammering the server immediately.',
    'Session pools let you keep cookies and an IP address together, which looks much more natural to the target site.',
    'Some pages include invisible links that only bots follow, so scope your crawler to the URL patterns you actually need.',
    'Blocking images, fonts and analytics scripts can cut bandwidth by more than half without changing the extracted data.',
    'Monitoring the ratio of failed requests tells you early when a site has changed its protection.',
    'In {year} many sites started to require a valid TLS fingerprint, not just the right user agent string.',
    'Libraries like {library} generate consistent fingerprints for you, so you do not have to maintain them by hand.',
    'Remember that scraping personal data is regulated in many jurisdictions, for example by the GDPR in the European Union.',
    'A good rule of thumb is to crawl no faster than a human could reasonably browse the same site.',
    "You can reduce the number of requests by using sitemaps and the site's own search or API endpoints.",
  ],
  bullets: [
    'Use residential or mobile proxies for heavily protected sites',
    'Rotate user agents together with the rest of the fingerprint',
    'Keep concurrency low at the start and increase it gradually',
    'Persist cookies per session',
    'Retry failed requests with exponential backoff',
    'Block unnecessary resources such as images and fonts',
    'Log response codes and page titles to detect soft blocks',
  ],
  slots: {
    vendor: ['Cloudflare', 'DataDome', 'Akamai', 'PerimeterX'],
    library: ['Crawlee', 'fingerprint-suite', 'Playwright'],
    year: ['2025', '2026'],
    n: ['7', '10', '12', '15'],
  },
};

const HIKING: Topic = {
  query: 'best day hikes near Vienna reachable by public transport',
  sites: [
    { host: 'www.wien.info', titleSuffix: ' - vienna.info' },
    { host: 'www.komoot.com', titleSuffix: ' | Komoot' },
    { host: 'www.alltrails.com', titleSuffix: ' | AllTrails' },
    { host: 'www.theviennablog.com', titleSuffix: ' - The Vienna Blog' },
    { host: 'www.reddit.com', titleSuffix: ' : r/vienna' },
  ],
  titles: [
    'The {n} best day hikes around Vienna',
    'Hiking near Vienna without a car: our favourite routes',
    'Wienerwald trails for every level',
    'Vienna city hiking trails (Stadtwanderwege) explained',
  ],
  headings: [
    'Kahlenberg and Leopoldsberg',
    'Hermannskogel',
    'Rax plateau',
    'Schneeberg',
    'Lainzer Tiergarten',
    'Getting there',
    'What to pack',
    'Where to eat after the hike',
    'Best time of year',
    'Final thoughts',
  ],
  sentences: [
    'The Vienna Woods start right at the edge of the city, and many trails begin at the last stop of a tram line.',
    'City hiking trail {trail} is about {km} kilometres long and well marked with white and red signs.',
    'From the top of Kahlenberg you get a wide view over the Danube and the whole city.',
    'The climb is steady but never steep, so it is suitable for families with older children.',
    'Take the {line} to the terminus and follow the signs uphill through the vineyards.',
    'On weekends the popular viewpoints get crowded, so start early if you want some quiet.',
    'Several Heurigen along the way serve local wine and simple cold dishes in the afternoon.',
    'The Rax is a proper alpine plateau and needs a full day, but the cable car takes care of most of the ascent.',
    'In winter the higher trails can be icy, and proper shoes or light crampons are a good idea.',
    'Lainzer Tiergarten is a former hunting ground where wild boar still roam freely between the oak trees.',
    'A regional train ticket is covered by the Klimaticket, which makes day trips very cheap.',
    'Bring enough water, as there are few fountains on the ridge sections.',
    'The descent towards Nussdorf passes through vineyards and ends close to the tram stop.',
    'Mobile reception is good on most routes close to the city, but it drops in the valleys further south.',
    'Dogs are allowed on most trails if they are kept on a leash.',
    'For a longer day combine two city trails and return by bus from {place}.',
    'Autumn is arguably the best season, when the beech forests turn gold and the new wine is served.',
    'Check the opening days of mountain huts before you go, many close on Mondays and Tuesdays.',
  ],
  bullets: [
    'Sturdy shoes with good grip',
    'At least one litre of water per person',
    'A rain jacket, even in summer',
    'Cash for the Heurigen and mountain huts',
    'An offline map of the route',
    'Sun cream and a hat for the open ridges',
  ],
  slots: {
    trail: ['1', '1a', '2', '4', '6', '9'],
    km: ['7', '9', '11', '13', '16'],
    line: ['tram D', 'bus 38A', 'tram 43', 'tram 60', 'S45'],
    place: ['Grinzing', 'Hütteldorf', 'Mauer', 'Neuwaldegg'],
    n: ['5', '8', '10', '12'],
  },
};

export interface RagOptions {
  topic: 'scraping' | 'hiking';
  results: number;
}

/** Dataset items of one RAG Web Browser query, with the default paginated envelope. */
export function ragWebBrowserPages(random: Random, options: RagOptions): JsonObject {
  const topic = options.topic === 'scraping' ? SCRAPING : HIKING;
  const sites = random.sample(topic.sites, options.results);
  const items = sites.map((site, index) => page(random, topic, site, index + 1));
  return {
    total: items.length,
    offset: 0,
    limit: items.length,
    desc: false,
    count: items.length,
    items,
  };
}

function page(
  random: Random,
  topic: Topic,
  site: { host: string; titleSuffix: string },
  rank: number,
): JsonObject {
  const title = fill(random, random.pick(topic.titles), topic.slots);
  const url = `https://${site.host}/${site.host === 'www.reddit.com' ? `r/vienna/comments/${base62(random, 6).toLowerCase()}/` : ''}${slug(title)}`;
  const description = fill(random, random.pick(topic.sentences), topic.slots);
  const markdown = articleMarkdown(random, topic, title, url);
  return {
    crawl: {
      httpStatusCode: 200,
      httpStatusMessage: 'OK',
      loadedAt: iso(CORPUS_NOW - random.int(5_000, 40_000)),
      uniqueKey: base62(random, 10),
      requestStatus: 'handled',
    },
    searchResult: {
      title: `${title}${site.titleSuffix}`,
      description:
        description.length > 160
          ? `${description.slice(0, 155).replace(/\s+\S*$/, '')} ...`
          : description,
      url,
      resultType: 'ORGANIC',
      rank,
    },
    metadata: {
      author: random.chance(0.5) ? personName(random) : null,
      title: `${title}${site.titleSuffix}`,
      description,
      languageCode: 'en',
      url,
    },
    markdown,
  };
}

/** A page as the Actor converts it: headings, paragraphs, lists, links and leftover navigation. */
function articleMarkdown(random: Random, topic: Topic, title: string, url: string): string {
  const origin = url.slice(0, url.indexOf('/', 8));
  const target = Math.round(random.logNormal(7000, 0.45));
  const parts: string[] = [];
  if (random.chance(0.5))
    parts.push(
      `[Skip to content](${url}#main)\n\n[Home](${origin}/) [Blog](${origin}/blog) [About](${origin}/about)`,
    );
  parts.push(`# ${title}`);
  if (random.chance(0.6))
    parts.push(
      `![${title}](${origin}/images/${slug(title).slice(0, 40)}-${base62(random, 6).toLowerCase()}.jpg)`,
    );
  let length = parts.join('\n\n').length;
  const headings = random.sample(topic.headings, topic.headings.length);
  for (let section = 0; length < target; section++) {
    const heading = headings[section % headings.length]!;
    parts.push(`## ${heading}`);
    const paragraphs = random.int(1, 3);
    for (let p = 0; p < paragraphs; p++) {
      const count = random.int(2, 5);
      const sentences = Array.from({ length: count }, () =>
        fill(random, random.pick(topic.sentences), topic.slots),
      );
      if (random.chance(0.25)) {
        const i = random.int(0, sentences.length - 1);
        sentences[i] =
          `${sentences[i]!.slice(0, -1)} ([source](${origin}/${slug(heading)}-${base62(random, 4).toLowerCase()})).`;
      }
      parts.push(sentences.join(' '));
    }
    if (random.chance(0.35))
      parts.push(
        random
          .sample(topic.bullets, random.int(3, 6))
          .map((b) => `- ${b}`)
          .join('\n'),
      );
    length = parts.join('\n\n').length;
  }
  if (random.chance(0.5))
    parts.push(
      `Related: [${fill(random, random.pick(topic.titles), topic.slots)}](${origin}/${base62(random, 8).toLowerCase()})`,
    );
  return parts.join('\n\n');
}
