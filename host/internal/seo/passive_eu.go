package seo

import "strings"

// Passive voice in the other supported languages, by the textbook rule of
// each: an auxiliary of the passive followed by a past participle. German
// and Dutch put the participle at the end of the clause, so it may come
// anywhere after the auxiliary; the Romance languages put it right after
// (an adverb may come between). The participle shapes are the regular
// ones plus the commonest irregular ones.

var (
	dePassiveAux = set(`werde wirst wird werden werdet wurde wurdest wurden wurdet worden`)
	nlPassiveAux = set(`word wordt worden werd werden geworden`)
	esPassiveAux = set(`es son era eran fue fueron será serán sería serían sido ser sea sean fuera fueran está están estaba estaban`)
	frPassiveAux = set(`suis es est sommes êtes sont étais était étions étiez étaient été être serai sera serons seront serait seraient fut furent soit soient`)
	itPassiveAux = set(`è sono era erano fu furono sarà saranno sarebbe sia siano essere stato stata stati state viene vengono veniva venivano venne vennero verrà verranno`)

	esIrregular = set(`hecho hecha hechos hechas dicho dicha escrito escrita escritos escritas visto vista vistos vistas puesto puesta
abierto abierta vuelto vuelta roto rota muerto cubierto cubierta resuelto resuelta descubierto descubierta impreso`)
	frIrregular = set(`fait faite faits faites dit dite dits dites écrit écrite écrits écrites mis mise pris prise ouvert ouverte offert
offerte construit construite produit produite vu vue vus vues lu lue lus lues su sue fini finie finis finies choisi choisie choisis
reçu reçue reçus reçues`)
	itIrregular = set(`fatto fatta fatti fatte detto detta scritto scritta scritti scritte visto vista preso presa messo messa chiuso
chiusa aperto aperta prodotto prodotta costruito costruita`)
	// Verbs of motion and change take être/essere in their perfect tense:
	// "il est arrivé" is not a passive.
	frNotPassive = set(`arrivé arrivée arrivés arrivées venu venue venus venues parti partie partis parties allé allée allés allées né née
nés mort morte resté restée restés tombé tombée tombés entré entrée sorti sortie monté montée descendu descendue retourné
devenu devenue revenu revenue passé passée`)
	itNotPassive = set(`andato andata andati andate venuto venuta venuti venute partito partita partiti arrivato arrivata arrivati
stato stata stati state nato nata nati morto morta rimasto rimasta diventato diventata tornato tornata uscito uscita
entrato entrata successo successa piaciuto piaciuta`)
)

// dePassive: a form of "werden" and a participle anywhere in the clause
// (main clauses put it last, subordinate ones before the auxiliary):
// ge…t or ge…en, the same after a separable prefix (angepasst,
// aufgebaut), …iert, or an inseparable prefix (be-, ent-, er-, ver-, zer-)
// with -t or -en (erkannt, besprochen). The last can misread a future
// with an infinitive ("wird verstehen"); that is rarer in prose than the
// passive.
func dePassive(ws []string) bool {
	aux, part := false, false
	for _, w := range ws {
		if dePassiveAux[w] {
			aux = true
		} else if deParticiple(w) {
			part = true
		}
	}
	return aux && part
}

var (
	deSeparable   = []string{"an", "auf", "aus", "ein", "mit", "vor", "zu", "ab", "nach", "bei", "zurück", "weg", "fest", "dar", "her", "hin", "um"}
	deInseparable = []string{"be", "ent", "er", "ver", "zer", "emp", "miss"}
)

func deParticiple(w string) bool {
	if len([]rune(w)) < 5 || w == "gegen" || w == "genug" || strings.HasPrefix(w, "geh") {
		return false
	}
	// Nouns of the same shape (Gewohnheit, Gesellschaft, Gewicht, Gebiet).
	if hasAnySuffix(w, 5, "heit", "keit", "schaft", "icht", "biet", "ment", "zeit") {
		return false
	}
	t, en := strings.HasSuffix(w, "t"), strings.HasSuffix(w, "en")
	if !t && !en {
		return false
	}
	if strings.HasSuffix(w, "iert") || strings.HasPrefix(w, "ge") {
		return true
	}
	for _, p := range deSeparable {
		if strings.HasPrefix(w, p+"ge") {
			return true
		}
	}
	for _, p := range deInseparable {
		if strings.HasPrefix(w, p) && len(w) > len(p)+3 {
			return true
		}
	}
	return false
}

// nlPassive: a form of "worden" and a participle (ge…d, ge…t, ge…en)
// anywhere in the sentence.
func nlPassive(ws []string) bool {
	aux := false
	part := false
	for _, w := range ws {
		if nlPassiveAux[w] {
			aux = true
			continue
		}
		if len(w) > 4 && strings.HasPrefix(w, "ge") && (strings.HasSuffix(w, "d") || strings.HasSuffix(w, "t") || strings.HasSuffix(w, "en")) && w != "genoeg" {
			part = true
		}
	}
	return aux && part
}

func romancePassive(aux, irregular, notPassive map[string]bool, regular func(string) bool) func([]string) bool {
	return func(ws []string) bool {
		for i, w := range ws {
			if !aux[w] {
				continue
			}
			for j := i + 1; j < len(ws) && j <= i+3; j++ {
				p := ws[j]
				if notPassive[p] {
					continue // "è stato fatto": look past "stato"
				}
				if irregular[p] || regular(p) {
					return true
				}
				if !strings.HasSuffix(p, "mente") && !strings.HasSuffix(p, "ment") {
					break // only an adverb may stand between
				}
			}
		}
		return false
	}
}

func hasAnySuffix(w string, min int, suffixes ...string) bool {
	if len([]rune(w)) < min {
		return false
	}
	for _, s := range suffixes {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

var (
	esPassive = romancePassive(esPassiveAux, esIrregular, nil, func(p string) bool {
		return hasAnySuffix(p, 5, "ado", "ada", "ados", "adas", "ido", "ida", "idos", "idas")
	})
	frPassive = romancePassive(frPassiveAux, frIrregular, frNotPassive, func(p string) bool {
		return hasAnySuffix(p, 4, "é", "ée", "és", "ées") || hasAnySuffix(p, 5, "du", "due", "dus", "dues", "nu", "nue", "nus", "nues")
	})
	itPassive = romancePassive(itPassiveAux, itIrregular, itNotPassive, func(p string) bool {
		return hasAnySuffix(p, 5, "ato", "ata", "ati", "ate", "ito", "ita", "iti", "ite", "uto", "uta", "uti", "ute")
	})
)
