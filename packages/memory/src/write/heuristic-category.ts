/**
 * A category guessed from wording alone, for when no LLM is configured. Generic English cues, checked
 * in order; anything else is filed under entities (facts about people and things).
 */
const RULES: ReadonlyArray<readonly [string, RegExp]> = [
  [
    'profile',
    /\b(my name is|i am an? |i'm an? |i work (as|at|for)|i live in|i was born|years old|my job)\b/i,
  ],
  [
    'preferences',
    /\b(i (really )?(like|love|prefer|enjoy|hate|dislike|want)|favou?rite|rather than|prefers?)\b/i,
  ],
  [
    'patterns',
    /\b(always|usually|every (day|week|month|morning|evening|time)|whenever|habit|routine|tends? to)\b/i,
  ],
  ['cases', /\b(fixed|solved|bug|error|workaround|resolved|the fix|root cause|failed because)\b/i],
  [
    'events',
    /\b(yesterday|today|tomorrow|last (week|month|year|night|weekend)|next (week|month|year)|went|visited|met|attended|happened|(on|this|last) (monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|\b\d{4}-\d{2}-\d{2}\b/i,
  ],
];

export function heuristicCategory(text: string): string {
  for (const [category, pattern] of RULES) if (pattern.test(text)) return category;
  return 'entities';
}
