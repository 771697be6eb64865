package analysis

import "strings"

// stopWords are each language's most frequent function words: Detect
// counts them, and Tokenize drops them from a text of that language
// (English drops the Snowball English list instead, as it always has).
// They were written for this package from common knowledge of each
// language's grammar words; short lists, since BM25's idf discounts the
// frequent words they miss.
var stopWords = [numLanguages + 1]string{
	English:    "the of and to in is that for with this are be was by from on as which an or not have has were been it its at",
	German:     "der die das und ist nicht mit ein eine einer einen eines dem den des auf für sich von zu auch wird werden oder bei wenn kann im sie es ich wir ihr sind war als aus nach wie über nur noch dass durch diese dieser dieses zum zur vom um",
	French:     "le la les de à l d qu n s c j et est des du une un dans pour que qui pas sur avec ce cette sont par au aux être ou il elle ne se sa son ses leur mais comme plus peut été en",
	Spanish:    "el la los las y es del en que un una por con para se no su sus al como lo está son o más pero este esta cuando sin sobre ser entre",
	Italian:    "il lo la l dell all nell d gli le e è di del della dei delle che un una per con non sono da in si al nel nella come anche più ma questo questa essere ha ad",
	Portuguese: "o a os as e é de do da dos das que um uma para com não em no na nos nas se por são ao mais como mas ou este esta ser pelo pela",
	Dutch:      "de het een en van is dat niet voor met op te zijn wordt worden die er ook aan als bij door naar om uit wel maar dan",
	Russian:    "и в не на что с по это как для или из к от то же но а о при если так только все его их бы был быть",
	// Polish has no Snowball stemmer; its words (na, do, a, o) would
	// otherwise read as Portuguese or Spanish. Detect gives it English's
	// rules, which leave its words as they always were.
	unstemmed: "i w z na do nie się że to jest o jak po od za przez dla lub oraz jego są być może tym ten ta które który która co ze we także tylko przy",
}

// unstemmed is Detect's slot for Polish: a language told apart only so
// that it is not read as another.
const unstemmed = numLanguages

// stopLangs maps a stop word to the set of languages (bit l: Language l)
// whose list holds it.
var stopLangs = func() map[string]uint16 {
	m := make(map[string]uint16)
	for l, list := range stopWords {
		for _, w := range strings.Fields(list) {
			m[w] |= 1 << l
		}
	}
	return m
}()

// isStopWordOf reports whether w (lower case) is one of lang's stop words.
func isStopWordOf(w string, lang Language) bool { return stopLangs[w]&(1<<lang) != 0 }

// IsStopWordOf reports whether the lower-case word w is one of lang's stop
// words: the words Tokenize drops from a text of lang and TokenizeStored
// keeps as terms of their own.
func IsStopWordOf(w string, lang Language) bool {
	if lang == English {
		return isEnglishStopWord(w)
	}
	return isStopWordOf(w, lang)
}
