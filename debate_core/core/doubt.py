"""Whether a sentence's own author says the point is not settled: the doubt readers of every protocol
share ("I cannot rule out ...", "results expected 23 October", "until the trustees decide"). General
English of doubt and of decisions still to come, no system's vocabulary; each alternative is bounded,
so a long sentence is read in linear time."""

from __future__ import annotations

import re

# A sentence in which its own author says the point is not settled ("I cannot rule out ...", "it is
# unclear whether ...", "the tests were inconclusive"): explicit doubt, not the hedges ("may",
# "likely") every careful text uses.
_HELD_OPEN = re.compile(r"\b(?:I|we)\s+(?:won't|will not|can't|cannot|can not|shan't|shall not)\s+(?:sign|say|"
                        r"confirm|certify|approve|decide|do|rule|accept|ratify|award|issue|pass|comment)\b[^.;]{0,60}?\buntil\b",
                        re.I)
# An answer or a hearing still to come, promised by a date ("She is abroad and has said she will reply
# by 28 July", "we ... will come back to you within ten working days", "The panel will hear the appeal
# on 5 June"): the sentence names only the wait; its passage names what waits.
_AWAITED = re.compile(r"(?:\bwill|'ll) (?:reply|respond|answer|confirm in writing|(?:come|get) back to (?:you|us|them)) "
                      r"(?:by|before|within|on|after)\b|\bwill hear (?:the|an|its|their|this|that) appeal\b", re.I)
_DOUBT = re.compile(
    r"\b(?:can ?not|can't|could not|couldn't) (?:be )?rul(?:e|ed) (?:it |anything |that |this )?out\b|\bnot (?:be )?ruled out\b"
    r"|\b(?:it is|it's|it remains|remains|is still|still) (?:unclear|uncertain|unknown|not known|not clear)\b"
    r"|\b(?:unclear|not clear|not known|unknown|uncertain) (?:whether|if)\b"
    # "We can't say before then whether there was a fault": the same, with when it will be known.
    r"|\b(?:can ?not|can't|could not|couldn't|impossible to|not possible to) (?:yet )?(?:say|tell|determine|establish|confirm|verify)"
    r"(?: (?:yet|before then|until then|till then|for now|at this stage|at present|at the moment))?"
    r" (?:whether|if|which|what (?:the|it|they|this|that|its)|for certain|for sure|when or|who it|whom)\b"
    # "I can't tell you from these results whether Lowgill still has scab": told whom, or from what.
    r"|\b(?:can ?not|can't|could not|couldn't) (?:say|tell)(?! enough\b) (?:you|us|them|him|her|anyone)?\b[^.;!?]{0,40}? (?:whether|which)\b"
    r"|\b(?:can ?not|could not|can't) be (?:determined|established|confirmed|checked|verified|reconciled|seen|told)\b"
    r"|\binconclusive\b"
    # "the two counts have not been reconciled", "the group makes no finding": the record says it is open.
    r"|\b(?:has|have|had) not (?:yet )?been (?:reconciled|verified|confirmed|established)\b"
    r"|\bmakes? no finding\b|\bno finding (?:has been|was|is|can be) made\b"
    r"|\b(?:nobody|no one|no-one) has (?:yet )?(?:compared|checked|confirmed|established|verified)\b"
    # "I haven't yet been able to measure on a Saturday": what the author could not yet do is open.
    r"|\b(?:haven't|have not|hasn't|has not) (?:yet )?been able to (?:measure|check|confirm|test|count|verify|"
    r"inspect|visit|compare)\b"
    # "Honestly, it could go either way": the writer cannot say which.
    r"|\b(?:could|might|may|can) go either way\b"
    # "two domed jars sent to the analyst; results expected 23 October": what would settle it is to come.
    r"|\b(?:results?|findings|verdict) (?:are |is )?(?:expected|due) (?:on |by |in |at )?(?:\d|mon|tue|wed|thu|fri|sat|sun|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|next|later|this|within)"
    # "Results, with an estimate of the mode effect by route group, due on 12 June": the same, with
    # what the results will hold said in between ("as expected on Monday" is no wait).
    r"|\b(?:results|findings)\b[^.;]{1,90}?(?<!\bas )\b(?:expected|due) (?:on |by |in )?(?:\d|mon|tue|wed|thu|fri|sat|sun|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|next|later)"
    # "We have referred this to an independent consultant; the report is due on 20 November": the
    # finding the point was referred for is still to come.
    r"|\breferred\b[^.]{0,100}?\b(?:report|decision|ruling|determination|findings?|outcome|view|opinion)s? "
    r"(?:is |are )?(?:expected|due)\b"
    # "the supplier still has to fix single sign-on and we can't promise it ... We'll confirm as soon
    # as we know": the writer will not vouch for the point, and says it is not yet known.
    r"|\b(?:can't|cannot|can not|couldn't|could not) (?:promise|guarantee) (?:it|that|this|anything)\b"
    r"|\bas soon as (?:we|I|they) (?:know|hear)\b"
    # "Nothing in this Schedule says further what 'number of pupils' means": the record leaves the
    # term's meaning open. "Item 6: meaning of 'number of pupils' (for decision)": it is to be decided.
    r"|\b(?:nothing|no clause|no term|no definition)\b[^.]{0,80}?\b(?:says?|defines?|specif(?:y|ies))\b[^.]{0,40}?"
    r"\bwhat\b[^.]{0,60}?\bmeans?\b"
    r"|\b(?:does not|doesn't|do not|don't) (?:say|define|specify)\b[^.]{0,10}?\bwhat\b[^.]{0,60}?\bmeans?\b"
    r"|\(\s*for (?:a )?decision\s*\)"
    # "I wasn't on shift for either, and I can't swear to the split", "I can't be sure which it was",
    # "I'm not sure which version was voted on": the writer will not vouch for the point.
    r"|\b(?:can't|cannot|can not|couldn't|could not) (?:swear|vouch) (?:to|for|that)\b"
    r"|\b(?:can't|cannot|can not|couldn't|could not) be (?:sure|certain)\b"
    r"|\b(?:I'm|I am|we're|we are) not (?:sure|certain) (?:whether|if|which|what|how|when|who)\b"
    # "I don't know her well enough to guess": the writer cannot say.
    r"|\b(?:don't|do not|doesn't|does not|didn't|did not) know (?:\w+ ){0,3}(?:well )?enough to (?:guess|say|tell|judge)\b"
    # "they haven't said yes or no yet": the decision the point waits on has not been given.
    r"|\b(?:haven't|have not|hasn't|has not) (?:yet )?(?:said yes or no|said either way|given (?:an|their|its|a) "
    r"(?:answer|decision)|decided)\b"
    # "We can't check the spoiled cones - nobody counted them": what would settle it was never taken.
    r"|\b(?:nobody|no one|no-one) (?:counted|checked|measured|weighed|recorded|witnessed) (?:it|them|this|that|those|these|the)\b"
    r"|\b(?:we|I) (?:can't|cannot|can not|couldn't|could not) (?:check|verify|count|confirm) (?:it|them|this|that|the)\b"
    # "Until that ruling the Open final result stays provisional": the result waits on a decision.
    r"|\b(?:results?|placings?|scores?|times?|standings?|rankings?)(?: [\w'-]+){0,4}? (?:stays?|remains?|is|are) "
    r"provisional\b"
    r"|\buntil (?:that|the|its|their|a) (?:ruling|decision|verdict|appeal hearing)\b"
    # "I've asked the insurer how they define it. No answer yet, and I won't guess for them": the
    # answer the point waits on has not come, and the writer will not supply one.
    r"|\bno (?:answer|reply|response|decision|ruling) (?:yet|as yet|so far)\b"
    # "the author has not re-rated it and has not replied to our message": the answer is awaited.
    r"|(?<!\bif )(?<!\bunless )\b(?:has not|have not|hasn't|haven't) (?:yet )?(?:replied|responded|answered) (?:to )?"
    r"(?:our|my|their|your|any)\b|\b(?:I|we) (?:won't|will not) guess\b|\b(?:I'd|I would|we'd|we would) rather not guess\b"
    # "The committee will decide how to treat the flagged votes at its meeting on 24 June", "the hall
    # committee will choose between the two requests at its meeting", "I'll decide after the quarterly
    # review meeting": the decision the point waits on is still to be taken.
    r"|(?:\bwill|'ll|\bis to|\bare to) (?:settle|decide|rule on|determine|choose|vote on|consider|hear)\b[^.;]{0,60}?\b(?:at|after) "
    r"(?:its|their|the|our) (?:next )?(?:[\w-]+ ){0,2}?meeting\b"
    # "We're checking whether the offline taps kept their own time", "We haven't agreed the Q3 figure":
    # what would settle it is still being looked into, or not yet agreed.
    r"|\b(?:we're|we are|I'm|I am|they're|they are) (?:still )?(?:checking|looking into|investigating) (?:whether|if)\b"
    # "your web developer is checking. I'll advise when I hear": the check is under way, the advice to come.
    r"|\b(?:is|are) (?:still )?(?:checking|looking into (?:it|this|that)|investigating)\s*(?:[.;!]|$)"
    r"|\b(?:I'll|I will|we'll|we will) (?:advise|confirm|let you know|get back to you|come back to you)\b[^.;]{0,30}?"
    r"\b(?:when|once|as soon as) (?:I|we|they) (?:hear|know|have)\b"
    r"|(?<!\bif )(?<!\bunless )\b(?:we|I|they|parties|sides) (?:still )?(?:haven't|have not) (?:yet )?agreed "
    r"(?:the|a|on|its|their)\b"
    # "I honestly don't know which way they'll go": the writer cannot say how the decision will fall.
    r"|\b(?:don't|do not|doesn't|does not) know which way\b"
    # Minutes circulated "for approval on 14 April", "I'd expect an answer in two or three weeks": the
    # record or the decision that settles it is still to come.
    r"|\bfor (?:approval|ratification|decision|confirmation) (?:on|at|by)\b"
    r"|\bexpect an? (?:answer|reply|decision|ruling|response) (?:in|within|by|next)\b"
    # "Whether the copy counts as written notice is not clear-cut, and I don't want HR telling parents
    # either way until I have looked ... I expect to advise by 26 June": the advice is still to come.
    r"|\b(?:is not|are not|isn't|aren't) (?:entirely |altogether )?clear[- ]cut\b|\beither way until\b"
    r"|\b(?:I|we) expect to (?:advise|decide|rule|report back|confirm)\b"
    # "I might have run the little kiln that Saturday, or was that the week before? Sorry, can't remember."
    r"|\b(?:can't|cannot|can not|don't|do not) (?:remember|recall)(?:\s+(?:whether|if|which|when))?(?=\s*(?:[.!?]|$|whether|if|which|when))"
    # "We are compiling the records ... we expect this to take two to three weeks"; "Engineer booked for
    # Saturday 19 December to read the event log": the record or the test that would settle it is to come.
    r"|\bexpect (?:this|it|that|them) to take\b"
    # "Protocol v4 hasn't been through our clinical policy group ... I can't give you a date for the policy
    # group yet": the decision the point waits on has no date.
    r"|\b(?:can't|cannot|can not|couldn't|could not) (?:yet )?(?:give|set|name|promise) (?:you |them |us |him |her )?"
    r"(?:a|any) (?:date|timescale|timeline)\b"
    # "Serial: V7-22103, last two digits hidden under a fold", "Count at intake: 30,7, the rest cut off by
    # the edge of the photo": the part of the record that would settle it cannot be read.
    r"|\b(?:the rest|(?:last|first) (?:two|three|four|few) (?:digits|figures|numbers|characters)|(?:digits|figures?|"
    r"numbers?|date|count|reading|serial)(?: number)?)\b[^.;]{0,12}?\b(?:is |are |was |were )?(?:hidden|cut off|illegible|"
    r"unreadable|obscured|not legible|not readable|torn off)\b"
    # "We've asked our supplier for our June 2020 purchases, but they may not keep records that old":
    # the record that would settle it has been asked for and has not come.
    r"|\b(?:we've|we have|I've|I have) (?:now |since )?asked (?:the|our|their|its|his|her) [\w-]+(?: [\w-]+)? for "
    r"(?:the|our|their|its|his|her|a|any|copies)\b[^.;]{0,80}?\bmay (?:not|no longer) (?:keep|have|hold|exist)\b"
    # "Ten bolts went for the referee test; they expect to report by 20 May", "we have asked the records
    # office to search the minutes; they expect to reply in July": the finding is to come.
    r"|\b(?:expects?|expected) to (?:report|reply|respond|decide|rule|give (?:a|its|their) (?:result|finding|answer)s?) "
    r"(?:by|on|in|within|next|before)\b"
    r"|\b(?:booked|scheduled|arranged) (?:for|on)\b[^.;]{0,60}?\bto (?:read|check|test|inspect|diagnose|measure|"
    r"load-test|confirm)\b"
    # "CCTV survey booked for 24 April 2026", "I can't separate them yet": the test that would settle it
    # is to come, and the one who would know cannot yet tell the causes apart.
    r"|\b(?:survey|inspection|tests?|testing|trial|analysis|sampling|re-?test)s? (?:is |are |has been |have been )?"
    r"(?:booked|scheduled|arranged) (?:for|on)\b(?![^.;]{0,60}?\b(?:found|showed|confirmed|cleared)\b)"
    r"|\b(?:can ?not|can't|could not|couldn't) (?:yet )?(?:separate|distinguish|untangle|tell apart) (?:them|the|these|those|"
    r"between|which)\b"
    # "Surveyor booked for 12 January 2026: borescope inspection of the cavity": the test is to come.
    r"|\b(?:booked|scheduled|arranged) (?:for|on) (?:\w+ )?\d{1,2}(?:st|nd|rd|th)? [A-Za-z]+(?: \d{4})?\s*[:,-]"
    r"[^.;]{0,60}?\b(?:inspection|tests?|testing|survey|trial|analysis|sampling|samples|readings?)\b"
    # "I changed phones and my old messages didn't transfer", "some messages left were not saved": the
    # record that would settle the point is lost.
    r"|\b(?:messages?|records?|logs?|files?|data|footage|recordings?|texts?|emails?|entries)\b[^.;]{0,40}?\b(?:didn't|did not|"
    r"weren't|were not|wasn't|was not|hasn't been|have not been|haven't been|could not be|couldn't be) (?:transfer(?:red)?|"
    r"saved|kept|retained|backed up|recovered|retrieved|found)\b"
    # "No formal action pending the outcome", "results should come by the end of June", "off sale until
    # we know where we stand": the finding that settles it is still to come.
    r"|\bpending (?:the |its |their |a |further |expert |legal )?(?:outcome|results?|decision|ruling|review|appeal|hearing|"
    r"investigation|analysis|counter-analysis|tests?|advice|opinion|report|assessment|clarification)\b"
    # "Without a pre-cleaning scan nobody can give a figure for the east bay": the one who would know cannot.
    r"|\b(?:nobody|no one|no-one) (?:can|could) (?:yet )?(?:(?:say|tell|know|determine|establish) (?:whether|which|how|what|"
    r"for sure|for certain)|give a figure)\b"
    r"|\bresults? (?:should|are due to|are expected to) (?:come|arrive|be back|be ready|be available)\b"
    r"|\bresults? will (?:come|arrive|be back|be ready|be available) (?:by|on|in|within|next|after)\b"
    r"|\buntil (?:we|I) (?:know|find out|hear back|hear from)\b"
    # "Council did not resolve the point", "the question remains unresolved", "She will give her view
    # after the Gathering on 25 July": the body that would settle it has not, or will only later.
    r"|\b(?:did not|didn't|has not|hasn't|have not|haven't|could not|couldn't|failed to) (?:yet )?(?:resolve|settle|decide) "
    r"(?:the|this|that) (?:point|question|issue|matter|dispute|disagreement)\b"
    r"|\b(?:point|question|issue|matter|dispute|disagreement)s? (?:was |were |is |are )?(?:left|remains?|still|is still) "
    r"unresolved\b"
    r"|(?:\bwill|'ll) give (?:her|his|their|its|a|an|the|our|my) (?:view|views|decision|answer|ruling|opinion|verdict) "
    r"(?:after|once|when|at|on|by|in|next)\b"
    # "The decision stands unless the appeals committee overturns it; it meets on 20 May", "the rules
    # don't say so": an appeal still to be heard, and a record silent on the point.
    r"|\bunless (?:the|an|a|its|their) (?:[\w-]+ ){0,2}?(?:committee|panel|board|tribunal|court|adjudicator|ombudsman|"
    r"appeal) (?:overturns?|reverses?|upholds?|allows?|decides? otherwise|rules? otherwise)\b"
    r"|\b(?:the )?(?:rules?|schedule|contract|policy|terms|handbook|constitution) (?:don't|do not|doesn't|does not) "
    r"say (?:so|which|whether)\b"
    # "Minutes to be approved at the next committee meeting, 9 June", "exact wording to be confirmed by
    # Gareth", "Let's not circulate anything until the meeting on 9 June sorts it out": the record
    # that settles it is still to be agreed.
    r"|\bto be (?:confirmed|approved|ratified|agreed|decided|settled|finali[sz]ed) (?:at|by|before|on|when|after)\b"
    r"|\buntil (?:the|our|its|their) (?:[\w-]+ ){0,3}?(?:meeting|committee|board|hearing|panel)\b[^.;]{0,30}?"
    r"\b(?:sorts?|decides?|settles?|resolves?|rules?|votes?|approves?)\b"
    # "Trustees agreed not to decide until they have the police's written advice, which will follow",
    # "the March minutes haven't been approved", "I can't tell you what your clause 9 means".
    r"|\bnot to (?:decide|rule|vote)\b[^.;]{0,30}?\buntil\b"
    r"|\b(?:advice|report|decision|ruling|opinion|findings) will follow\b(?!\s+(?:the|a|an|our|its|their|this|that|his|her)\b)"
    r"|\b(?:minutes|decision|resolution|change|amendment)s? (?:haven't|have not|hasn't|has not) (?:yet )?been "
    r"(?:approved|agreed|ratified|confirmed|adopted)\b"
    r"|\b(?:can't|cannot|can not) tell you what\b[^.;]{0,60}?\bmeans\b"
    # "We will decide whether the cap was exceeded when we have them", "Until then the tonnage is not
    # confirmed", "Neither figure can be relied on", "the panel will measure her on 3 September and
    # decide then", "whether they are bolt heads can't be made out", "his written report has not been
    # sent yet": the finding is still to come, or the record cannot show it.
    r"|(?:\bwill|'ll) decide\b[^.;]{0,30}?\bwhether\b|\band decide then\b"
    # "I'm not going to say in advance which way it will go", "I've asked the chair to put it on the
    # agenda for 21 May": the one who decides will not foretell it, and the point waits on a meeting.
    r"|\b(?:won't|will not|not going to|can't|can ?not) (?:say|predict|guess|tell you) (?:in advance |now )?(?:which way|how) "
    r"(?:it|the vote|they|the committee|the board|the panel) (?:will|is going to) go\b"
    r"|\b(?:put|place|add)(?:ed)? (?:it|this|that|the (?:point|question|matter|issue)) on the (?:agenda|order paper) (?:for|of)\b"
    r"|\b(?:is|are|remains?) not (?:yet )?confirmed\b"
    r"|\bneither (?:figure|value|count|estimate|reading|measurement|account|version)s? (?:can|could) be (?:relied|trusted)\b"
    r"|\b(?:can't|cannot|can not|couldn't|could not) be made out\b"
    r"|\b(?:report|results?|advice|letter|decision|findings|statement) (?:has|have) not (?:yet )?been (?:sent|issued|"
    r"received|given|published|written)\b"
    # "Officers recommend approval; members may amend, defer or refuse": how the decision falls is open
    # (a body that may defer; "you may accept or reject the offer" is a choice given, not a point open).
    r"|\bmay (?=[^.;]{0,40}?\b(?:defer|adjourn|postpone)\b)(?:approve|amend|accept|agree|defer|refuse|reject)\b"
    r"[^.;]{0,30}?\bor (?:defer|refuse|reject|approve|amend|adjourn|postpone)\b"
    # "The board may decide then or defer to July": even when the decision comes is open.
    r"|\b(?:decide|rule|vote)\b[^.;]{0,60}?\bor (?:defer|postpone|adjourn)\b"
    # "'Direct supervision' is not defined in this schedule": the record leaves the term open.
    r"|['\u2018\"\u201c][^'\u2019\"\u201d]{2,60}['\u2019\"\u201d] (?:is|are) (?:not|nowhere) defined\b"
    # "Tomasz: I can't remember whether I put my hand up": the one who would know cannot say.
    r"|\b(?:can't|cannot|can not|couldn't|could not|don't|do not) (?:remember|recall) (?:whether|if|which way|how I|"
    r"who was|when)\b"
    # "The log does not record who called", "the hospital has not yet replied", "I don't know what was
    # in it": the record is silent on the point, an answer is awaited, the witness cannot say.
    r"|\b(?:does not|doesn't|did not|didn't) (?:record|show|say) (?:who|whom)\b"
    r"|\b(?:has not|have not|hasn't|haven't) yet (?:replied|responded|answered)\b"
    r"|\b(?:I|we) (?:don't|do not|didn't|did not) know (?:what|how much) (?:was|were) in (?:it|them|the)\b"
    # "Let's settle it at the meeting": the decision is still to be taken.
    r"|\blet's (?:settle|decide|sort) (?:it|this|that)(?: out)? at the (?:next )?meeting\b"
    # "Whether the food bank is still part of the PCC or a separate charity depends on what was agreed
    # in 2022": the writer names the open point, a past fact (not a test the law sets: "depends on what
    # a reasonable trader would have done"); "We'd want to see the minutes before advising", "no
    # idea where they are now": the advice waits, and the record that would settle it is lost.
    r"|^\W*whether\b[^.;]{0,160}?\bdepends? (?:on|upon) (?:what|who|how|when|whether|which)\b[^.;]{0,20}?"
    r"\b(?:was|were|did|had|actually|really)\b"
    r"|\bbefore (?:advising|deciding|ruling|we (?:can )?(?:advise|decide|rule))\b"
    r"|\bno idea (?:where|whether|if|what|which|who|how)\b"
    # "the wording can be read either way", "Prize cards are held until the appeals committee meets":
    # the text settles nothing, and what depends on it waits for the decision.
    r"|\bcan be (?:read|taken|understood) (?:either way|both ways)\b"
    r"|\b(?:held|withheld|on hold|suspended) until\b[^.;]{0,60}?\b(?:meets?|decides?|rules?|hearing|decision|ruling)\b"
    # "No test since 2 May has used the new meter at the old spot": nothing has yet separated the causes.
    r"|\bno (?:test|check|trial|comparison|measurement)s?\b[^.;]{0,60}?\b(?:has|have) (?:yet )?(?:used|separated|"
    r"compared|isolated|tested|checked)\b"
    # "Please don't treat this as agreed. The trustees haven't voted", "I won't prejudge the trustees'
    # vote", "we'll confirm after 14 May whether we can do it", "I expect we'll drop it, but I can't
    # promise. Until the panel decides, ...": the decision the point waits on is still to come.
    r"|\b(?:don't|do not) treat (?:this|it|that) as (?:agreed|decided|final|settled|approved|confirmed)\b"
    r"|(?<!\bwho )\b(?:haven't|have not|hasn't|has not) (?:yet )?voted\b"
    r"|\b(?:won't|will not) (?:prejudge|pre-judge|pre-empt|preempt)\b"
    r"|\b(?:we'll|we will|I'll|I will) (?:confirm|let you know|tell you|decide) (?:after|once|when)\b[^.;]{0,60}?\bwhether\b"
    r"|\b(?:can't|cannot|can not) promise(?=\s*(?:[.;!]|$))"
    r"|\buntil (?:the|its|their) (?:[\w-]+ ){0,2}?(?:decides?|has decided|have decided|rules?|has ruled|votes?|has voted|"
    r"have voted)\b"
    # "The receivers have accepted an offer of £415,000, subject to contract ... sales can still fall
    # through": a sale agreed but not bound.
    r"|\bsubject to contract\b|\b(?:can|could|may|might) (?:still )?fall through\b"
    # "Looks fine in principle. We'll ... sign next week": agreed only in principle is not yet agreed.
    r"|\b(?:agreed?|approved?|accepted|fine|ok|okay|happy)\b[^.;]{0,20}?\bin principle\b"
    # "She is abroad and has said she will reply by 28 July", "The panel will hear the appeal on 5 June":
    # the answer or the hearing that settles it is still to come.
    r"|" + _AWAITED.pattern
    # "We have provisionally required a second approver ... we have asked for the policy to be clarified
    # at the leadership meeting on 24 March": what is applied meanwhile is not what was decided.
    + r"|\b(?:have|has|had) provisionally (?:required|applied|set|treated|allowed|agreed|decided|accepted|suspended|"
    r"recorded|placed|classed|barred|banned|blocked)\b"
    r"|\basked (?:for )?(?:the|it|this|that|our|their)\b[^.;]{0,40}?\bto be (?:clarified|confirmed|decided|settled|resolved)"
    r" (?:at|by|on|when|before)\b"
    # "I'll hold the chilblains line for Elmcroft until K has been reviewed": the figure waits on a review.
    + r"|\b(?:I'll|I will|we'll|we will|I'm going to|we're going to) hold (?:the|this|that|it|off|back|our|your)\b[^.;]{0,40}?"
    r"\buntil\b"
    # "Until Kat and I sit down on 30 April, the 2024 policy stands": the people who settle it have
    # still to meet, and what stands till then stands only for now.
    + r"|\buntil (?:[A-Z][\w-]+ and (?:I|me|we)|(?:I|we) and [A-Z][\w-]+|we|they|both (?:of us|partners|parties)|the (?:two|"
    r"partners|parties|two of us|directors|owners)) (?:can )?(?:sit down|meet|talk|get together|speak)\b"
    # "Your protest goes to the competition committee, which meets on 29 April": the body that settles
    # it has still to sit ("A protest goes to the committee, whose decision is final" is the rule).
    + r"|\b(?:protest|appeal|complaint|objection|challenge|dispute|claim)s?\b[^.;]{0,40}? (?:now )?(?:goes|go|has gone|have gone|"
    r"will go|is going|has been (?:referred|passed|sent)) to\b[^.;]{0,60}?,? (?:which|who) (?:meets|will meet|sits|"
    r"will sit|will hear|will decide|will rule|will consider)\b"
    # "I won't sign anything until the new certificate is back": its author holds the point open.
    + r"|" + _HELD_OPEN.pattern, re.I)


def states_doubt(sentence: str) -> bool:
    """Whether the sentence's author says the point is not settled (see _DOUBT)."""
    return bool(_DOUBT.search(sentence))


def holds_open(sentence: str) -> bool:
    """Whether the sentence's author holds the point open until something comes ("I won't sign anything
    until the new certificate is back")."""
    return bool(_HELD_OPEN.search(sentence))


def awaits_answer(sentence: str) -> bool:
    """Whether the sentence says an answer or a hearing that settles the point is still to come, by a
    date ("She has said she will reply by 28 July")."""
    return bool(_AWAITED.search(sentence))
