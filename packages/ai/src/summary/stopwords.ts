// English words that never make a key phrase: function words, conversational fillers and the
// common verbs of meetings (without a part-of-speech tagger, a verb would otherwise start a phrase).
const FUNCTION_WORDS = `a about above after again against all almost along already also although always am among an and
another any anybody anyone anything are around as at away back be because been before being below between both but by
can cannot could did do does doing done down during each either else enough even ever every everybody everyone
everything few for from further had has have having he her here hers herself him himself his how however i if in into
is it its itself just least less many may me might mine more most much must my myself neither never no nobody none nor
not nothing now of off often on once one only onto or other others otherwise our ours ourselves out over own per
perhaps quite rather really same several shall she should since so some somebody someone something sometimes soon
still such than that the their theirs them themselves then there these they this those though through thus till to
together too toward towards under until up upon us very via was we well were what whatever when whenever where whether
which while who whoever whole whom whose why will with within without would yet you your yours yourself yourselves
let's lets i'm i'll i've i'd we're we'll we've you're you'll they're it's that's there's what's don't doesn't didn't
can't won't isn't aren't wasn't weren't`;

const CONVERSATION = `yes yeah yep no nope okay ok right sure great good fine thanks thank please sorry hello hi hey bye
morning afternoon evening everyone everybody guys folks today tomorrow yesterday week weeks month months year years
time times thing things stuff lot lots bit kind sort way ways point points question questions idea ideas anyway
actually basically probably maybe definitely exactly absolutely totally pretty quite fairly mostly first second last
next new old big small great little long short high low early late many much more less same different important
sound sounds agree agreed think thought know knew mean meant guess feel felt hope wonder`;

const COMMON_VERBS = `add added adding ask asked asking become became begin began bring brought build built buy bought
call called calling change changed check checked choose chose come coming continue could create created decide
decided discuss discussed do doing done find found finish finished fix fixed follow get gets getting give given go
goes going gone got happen happened have help helped hire hired hold keep kept know learn leave left let like look
looked looking made make makes making meet move moved moving need needed needs open pay plan planned prepare put
read ready receive remember review reviewed run said say says see seem seemed send sending sent set share shared show
showed shows speak spend start started starting stop suggest take taken talk talked tell tested think told try tried
trying turn update updated use used using wait want wanted wants work worked working write wrote`;

const words = (s: string) => s.split(/\s+/).filter(Boolean);

export const STOPWORDS: ReadonlySet<string> = new Set([...words(FUNCTION_WORDS), ...words(CONVERSATION), ...words(COMMON_VERBS)]);

/** Titles also avoid words that say nothing about a meeting ("Meeting", "Discussion"). */
export const TITLE_STOPWORDS: ReadonlySet<string> = new Set([
  ...STOPWORDS,
  "meeting",
  "meetings",
  "discussion",
  "discussions",
  "update",
  "updates",
  "call",
  "sync",
  "review",
  "overview",
]);
