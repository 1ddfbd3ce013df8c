import type { TextCheck } from '@/core/tasks';
import type { ParsedTask } from './formats';

/** The built-in text suite (issue 15: RL on a real pretrained model with verifiable text rewards). */
export const STORIES_SUITE = 'stories';

// Many names and things in train, so that mentioning them is learned as copying from the
// prompt (which carries over to held-out), not as a few memorised words (which does not:
// measured with 12 train names and 10 things, docs/rl.md).
const GIRLS = [
  'Lily',
  'Sue',
  'Mia',
  'Anna',
  'Lucy',
  'Sara',
  'Zoe',
  'Rose',
  'Lisa',
  'Molly',
  'Daisy',
  'Ruby',
  'Grace',
  'Kate',
  'Nina',
  'Bella',
  'Amy',
  'Kim',
  'Emma',
  'Jane',
];
const BOYS = [
  'Tim',
  'Ben',
  'Tom',
  'Max',
  'Sam',
  'Jack',
  'Dan',
  'Finn',
  'Jake',
  'Luke',
  'Mark',
  'Ned',
  'Paul',
  'Ted',
  'Adam',
  'Alex',
  'Leo',
  'Bob',
  'Joe',
  'Jim',
];
const THINGS = [
  'ball',
  'dog',
  'cat',
  'kite',
  'box',
  'cake',
  'hat',
  'bird',
  'car',
  'boat',
  'fish',
  'frog',
  'duck',
  'bear',
  'train',
  'truck',
  'drum',
  'shell',
  'flower',
  'rock',
  'stick',
  'leaf',
  'star',
  'balloon',
  'bag',
  'bowl',
  'sock',
  'coat',
  'doll',
  'book',
  'toy',
  'apple',
  'bike',
  'cup',
  'bell',
  'key',
];
/** The last of each list are held out. */
const HELD_OUT = { names: 4, things: 8 };
const ADJECTIVES = ['red', 'big', 'little', 'blue', 'shiny', 'soft', 'new', 'pretty'];

type Who = { name: string; she: 'She' | 'He'; her: 'her' | 'his'; kid: 'girl' | 'boy' };
const TEMPLATES: ((w: Who, adj: string, thing: string) => string)[] = [
  (w, adj, thing) => `Once upon a time, there was a little ${w.kid} named ${w.name}. ${w.she} had a ${adj} ${thing}.`,
  (w, adj, thing) => `One day, ${w.name} found a ${adj} ${thing} in the garden.`,
  (w, adj, thing) => `${w.name} went to the park with ${w.her} ${adj} ${thing}.`,
  (w, adj, thing) => `${w.name} loved ${w.her} ${adj} ${thing} very much.`,
];

/** The checks of every story task: keep the prompt's child and thing in the story, and end the paragraph cleanly. */
export function storyChecks(name: string, thing: string): TextCheck[] {
  return [{ type: 'mentions', words: [name] }, { type: 'mentions', words: [thing] }, { type: 'ends_sentence' }, { type: 'min_words', n: 6 }];
}

/**
 * Story openings for a model trained on children's stories (e.g. stories260K): the policy
 * continues the paragraph, and its reward is the share of checks the text passes. The
 * held-out split uses children's names and things no train task has, so a rise there is
 * learned behaviour (copy the names, finish the sentence), not memorised prompts.
 * Deterministic: the same tasks every time.
 */
export function storiesSuite(): ParsedTask[] {
  const out: ParsedTask[] = [];
  const whos = (names: string[], kid: 'girl' | 'boy'): Who[] =>
    names.map((name) => (kid === 'girl' ? { name, she: 'She', her: 'her', kid } : { name, she: 'He', her: 'his', kid }));
  const [g, b, t] = [GIRLS.length - HELD_OUT.names, BOYS.length - HELD_OUT.names, THINGS.length - HELD_OUT.things];
  const splits = [
    { split: 'train' as const, who: [...whos(GIRLS.slice(0, g), 'girl'), ...whos(BOYS.slice(0, b), 'boy')], things: THINGS.slice(0, t), n: 128 },
    { split: 'heldout' as const, who: [...whos(GIRLS.slice(g), 'girl'), ...whos(BOYS.slice(b), 'boy')], things: THINGS.slice(t), n: 32 },
  ];
  for (const { split, who, things, n } of splits) {
    for (let i = 0; i < n; i++) {
      const w = who[i % who.length]!;
      const thing = things[(i * 5 + Math.floor(i / who.length)) % things.length]!;
      const adj = ADJECTIVES[(i * 3) % ADJECTIVES.length]!;
      const template = TEMPLATES[i % TEMPLATES.length]!;
      out.push({
        externalId: `story/${split}_${String(i).padStart(3, '0')}`,
        // the checker program's language; the policy writes prose, which is never run
        language: 'python',
        prompt: template(w, adj, thing),
        entryPoint: 'story',
        tests: { kind: 'text', checks: storyChecks(w.name, thing) },
        risk: 'routine',
        environmentName: null,
        split,
        difficulty: null,
        demonstration: null,
      });
    }
  }
  return out;
}
