//! Unit tests of the LOCM rules: item and combat arithmetic from `docs/locm-rules.md`
//! (the recorded matches never play an item), runes, draw and deck-out,
//! mana, lanes and Guard, the draft, and the `Game` contract. (The bots'
//! own tests are beside them, in `plan/`.)

use super::battle::{Battle, Creature, HandCard, Move};
use super::cards::{BUNDLED_CARDLIST, CardTable, Keywords};
use super::draft::POOL_SIZE;
use super::*;
use crate::map::Level;

/// Decks of 30 Beavrats (2/2, no effect).
const BEAVRATS: battle::Decks = [[3; DECK_SIZE]; 2];

fn table() -> CardTable {
    CardTable::parse(BUNDLED_CARDLIST).unwrap()
}

/// A battle at player 0's first turn, both decks all Beavrats (2/2), with
/// 12 mana for whoever moves.
fn battle() -> Battle {
    let mut battle = Battle::start(&BEAVRATS);
    battle.players[0].mana = 12;
    battle.players[1].mana = 12;
    battle
}

/// Puts card `card` on `player`'s board in `lane`, ready to attack.
fn put(battle: &mut Battle, table: &CardTable, player: usize, card: u8, lane: u8, instance: u8) {
    let stats = table.stats(card);
    let side = &mut battle.players[player];
    side.board[usize::from(side.board_len)] = Creature {
        instance,
        card,
        lane,
        attack: i16::from(stats.attack),
        defense: i16::from(stats.defense),
        keywords: stats.keywords,
        can_attack: true,
        has_attacked: false,
        effects_hidden: false,
    };
    side.board_len += 1;
}

fn give(battle: &mut Battle, player: usize, card: u8, instance: u8) {
    let side = &mut battle.players[player];
    side.hand[usize::from(side.hand_len)] = HandCard { instance, card };
    side.hand_len += 1;
}

fn creature(battle: &Battle, player: usize, instance: u8) -> Option<Creature> {
    let side = &battle.players[player];
    side.find_creature(instance).map(|index| side.board[index])
}

#[track_caller]
fn play(battle: &mut Battle, table: &CardTable, action: Move) {
    assert!(battle.is_legal(action, table), "{action:?} should be legal");
    battle.apply(action, table, &BEAVRATS);
}

#[test]
fn red_item_on_a_warded_creature_lowers_attack_and_strips_ward_only() {
    let table = table();
    let mut battle = battle();
    put(&mut battle, &table, 1, 65, 0, 52); // Steelplume Defender 2/2 Ward
    give(&mut battle, 0, 141, 51); // Throwing Knife -1/-1
    play(&mut battle, &table, Move::Use { item: 51, target: 52 });
    let target = creature(&battle, 1, 52).unwrap();
    assert_eq!((target.attack, target.defense, target.keywords.has(Keywords::WARD)), (1, 2, false));
    assert!(target.effects_hidden);
}

#[test]
fn decimate_removes_ward_first_then_kills() {
    let table = table();
    let mut battle = battle();
    put(&mut battle, &table, 1, 68, 1, 52); // Giant Squid 7/5 Ward
    give(&mut battle, 0, 151, 51);
    play(&mut battle, &table, Move::Use { item: 51, target: 52 });
    assert!(creature(&battle, 1, 52).is_none());
    assert_eq!(battle.players[0].mana, 12 - 5);
}

#[test]
fn firebolt_hits_the_creature_and_the_opponent_or_the_face_for_four() {
    let table = table();
    let mut battle = battle();
    put(&mut battle, &table, 1, 58, 0, 52); // Darkscale Predator 5/6
    give(&mut battle, 0, 155, 51);
    give(&mut battle, 0, 155, 53);
    play(&mut battle, &table, Move::Use { item: 51, target: 52 });
    assert_eq!(creature(&battle, 1, 52).unwrap().defense, 3);
    assert_eq!(battle.players[1].health, 29);
    play(&mut battle, &table, Move::Use { item: 53, target: 0 });
    assert_eq!(battle.players[1].health, 25);
    // 25 is a rune: breaking it adds a draw for the opponent's next turn.
    assert_eq!((battle.players[1].runes, battle.players[1].next_turn_draw), (4, 2));
}

#[test]
fn blue_items_never_target_own_creatures_and_green_only_own() {
    let table = table();
    let mut battle = battle();
    put(&mut battle, &table, 0, 3, 0, 50);
    put(&mut battle, &table, 1, 3, 0, 52);
    give(&mut battle, 0, 158, 51); // blue
    give(&mut battle, 0, 118, 53); // green
    give(&mut battle, 0, 144, 55); // red
    assert!(!battle.is_legal(Move::Use { item: 51, target: 50 }, &table));
    assert!(battle.is_legal(Move::Use { item: 51, target: 52 }, &table));
    assert!(battle.is_legal(Move::Use { item: 51, target: 0 }, &table));
    assert!(battle.is_legal(Move::Use { item: 53, target: 50 }, &table));
    assert!(!battle.is_legal(Move::Use { item: 53, target: 52 }, &table));
    assert!(!battle.is_legal(Move::Use { item: 55, target: 0 }, &table));
    assert!(!battle.is_legal(Move::Use { item: 55, target: 50 }, &table));
    let mut moves = Vec::new();
    battle.legal_moves(&table, &mut moves);
    for action in &moves {
        assert!(battle.is_legal(*action, &table), "{action:?} generated but not legal");
    }
    assert_eq!(moves.iter().filter(|action| matches!(action, Move::Use { .. })).count(), 2 + 1 + 1);
}

#[test]
fn green_charge_lets_a_fresh_creature_attack_but_not_one_that_attacked() {
    let table = table();
    let mut battle = battle();
    give(&mut battle, 0, 3, 51);
    play(&mut battle, &table, Move::Summon { instance: 51, lane: 0 });
    assert!(!creature(&battle, 0, 51).unwrap().can_attack);
    put(&mut battle, &table, 0, 3, 1, 50);
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 0 });
    give(&mut battle, 0, 140, 53);
    give(&mut battle, 0, 140, 55);
    play(&mut battle, &table, Move::Use { item: 53, target: 51 });
    play(&mut battle, &table, Move::Use { item: 55, target: 50 });
    assert!(creature(&battle, 0, 51).unwrap().can_attack);
    assert!(!creature(&battle, 0, 50).unwrap().can_attack);
}

#[test]
fn breakthrough_lethal_drain_and_ward_in_combat() {
    let table = table();
    // Breakthrough: Scarlet Colossus 8/8 kills a 2/2 and 6 goes through.
    let mut battle = battle();
    put(&mut battle, &table, 0, 79, 0, 50);
    put(&mut battle, &table, 1, 3, 0, 52);
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 52 });
    assert_eq!(battle.players[1].health, 24);
    assert_eq!(creature(&battle, 0, 50).unwrap().defense, 6);
    // A warded defender lets nothing through and loses its Ward.
    let mut battle = self::battle();
    put(&mut battle, &table, 0, 79, 0, 50);
    put(&mut battle, &table, 1, 65, 0, 52);
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 52 });
    assert_eq!(battle.players[1].health, 30);
    let defender = creature(&battle, 1, 52).unwrap();
    assert_eq!((defender.defense, defender.keywords.has(Keywords::WARD)), (2, false));
    // Lethal kills whatever it damages, both ways; Drain heals by the full attack.
    let mut battle = self::battle();
    put(&mut battle, &table, 0, 44, 0, 50); // Deathstalker 3/7 Drain Lethal
    put(&mut battle, &table, 1, 62, 0, 52); // Mutant Troll 12/12
    battle.players[0].health = 20;
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 52 });
    assert!(creature(&battle, 1, 52).is_none());
    assert!(creature(&battle, 0, 50).is_none());
    assert_eq!(battle.players[0].health, 23);
    // A defender's Lethal kills the attacker; a defender's Drain heals nothing.
    let mut battle = self::battle();
    put(&mut battle, &table, 0, 79, 0, 50);
    put(&mut battle, &table, 1, 44, 0, 52);
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 52 });
    assert!(creature(&battle, 0, 50).is_none());
    assert!(creature(&battle, 1, 52).is_none());
    assert_eq!(battle.players[1].health, 30 - 1);
}

#[test]
fn guard_only_binds_its_own_lane() {
    let table = table();
    let mut battle = battle();
    put(&mut battle, &table, 0, 3, 0, 50);
    put(&mut battle, &table, 0, 3, 1, 54);
    put(&mut battle, &table, 1, 55, 0, 52); // Hermit Slime 0/5 Guard
    put(&mut battle, &table, 1, 3, 0, 56);
    assert!(!battle.is_legal(Move::Attack { attacker: 50, target: 0 }, &table));
    assert!(!battle.is_legal(Move::Attack { attacker: 50, target: 56 }, &table));
    assert!(battle.is_legal(Move::Attack { attacker: 50, target: 52 }, &table));
    assert!(battle.is_legal(Move::Attack { attacker: 54, target: 0 }, &table));
    assert!(!battle.is_legal(Move::Attack { attacker: 54, target: 52 }, &table));
}

#[test]
fn lanes_hold_three_creatures() {
    let table = table();
    let mut battle = battle();
    for instance in [50, 52, 54] {
        put(&mut battle, &table, 0, 3, 0, instance);
    }
    give(&mut battle, 0, 3, 51);
    assert!(!battle.is_legal(Move::Summon { instance: 51, lane: 0 }, &table));
    assert!(battle.is_legal(Move::Summon { instance: 51, lane: 1 }, &table));
    assert!(!battle.is_legal(Move::Summon { instance: 51, lane: 2 }, &table));
}

#[test]
fn mana_grows_and_the_second_players_bonus_ends_when_spent() {
    let table = table();
    let mut battle = Battle::start(&BEAVRATS);
    assert_eq!((battle.players[0].max_mana, battle.players[0].hand_len), (1, 5));
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!((battle.players[1].max_mana, battle.players[1].hand_len), (2, 6));
    // Player 1 spends everything: from its next turn it is level with player 0.
    battle.players[1].mana = 0;
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!(battle.players[0].max_mana, 2);
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!(battle.players[1].max_mana, 2);
    for _ in 0..40 {
        battle.apply(Move::EndTurn, &table, &BEAVRATS);
    }
    assert_eq!((battle.players[0].max_mana, battle.players[1].max_mana), (12, 12));
}

#[test]
fn an_empty_deck_costs_a_rune_per_draw_even_with_a_full_hand() {
    let table = table();
    let mut battle = battle();
    battle.players[1].deck_drawn = DECK_SIZE as u8;
    battle.players[1].hand_len = 8;
    battle.players[1].next_turn_draw = 2;
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!((battle.players[1].runes, battle.players[1].health), (3, 20));
    // No runes left: health drops to 0 and the player loses at its turn start.
    let mut battle = self::battle();
    battle.players[1].deck_drawn = DECK_SIZE as u8;
    battle.players[1].runes = 0;
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!(battle.winner, Some(0));
}

#[test]
fn a_full_hand_wastes_the_remaining_draws() {
    let table = table();
    let mut battle = battle();
    battle.players[1].hand_len = 7;
    battle.players[1].next_turn_draw = 3;
    battle.apply(Move::EndTurn, &table, &BEAVRATS);
    assert_eq!((battle.players[1].hand_len, battle.players[1].deck_drawn), (8, 6));
}

#[test]
fn losing_health_past_two_runes_adds_two_draws() {
    let table = table();
    let mut battle = battle();
    give(&mut battle, 0, 152, 51); // irrelevant item, keeps the hand realistic
    put(&mut battle, &table, 0, 62, 0, 50); // 12 attack to the face: 30 -> 18
    play(&mut battle, &table, Move::Attack { attacker: 50, target: 0 });
    assert_eq!((battle.players[1].health, battle.players[1].runes, battle.players[1].next_turn_draw), (18, 3, 3));
}

#[test]
fn killing_the_opponent_wins_even_if_it_kills_you() {
    let table = table();
    let mut battle = battle();
    battle.players[0].health = 1;
    battle.players[1].health = 2;
    give(&mut battle, 0, 45, 51); // Night Howler: summon costs you 3 health
    give(&mut battle, 0, 156, 53); // Major Life Steal: 3 to the opponent
    play(&mut battle, &table, Move::Use { item: 53, target: 0 });
    assert_eq!(battle.winner, Some(0));
    let mut battle = self::battle();
    battle.players[0].health = 1;
    give(&mut battle, 0, 45, 51);
    play(&mut battle, &table, Move::Summon { instance: 51, lane: 0 });
    assert_eq!(battle.winner, Some(1));
}

#[test]
fn illegal_actions_are_rejected_and_leave_the_state_alone() {
    let config = Config::bundled();
    let mut game = LocmGame::new(&config, 5);
    let before = game.state_hash();
    assert!(game.step(Action::Pick(3)).is_err());
    assert!(game.step(Action::Battle(Move::EndTurn)).is_err());
    assert_eq!(game.state_hash(), before);
    for _ in 0..2 * PICKS {
        game.step(Action::Pick(0)).unwrap();
    }
    assert!(game.step(Action::Pick(0)).is_err());
    let before = game.state_hash();
    assert!(game.step(Action::Battle(Move::Attack { attacker: 1, target: 0 })).is_err());
    assert!(game.step(Action::Battle(Move::Summon { instance: 2, lane: 0 })).is_err());
    assert_eq!(game.state_hash(), before);
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    assert_eq!(legal.last(), Some(&Action::Battle(Move::EndTurn)));
}

#[test]
fn action_codes_round_trip_and_reject_garbage() {
    let actions = [
        Action::Pick(0),
        Action::Pick(2),
        Action::Battle(Move::EndTurn),
        Action::Battle(Move::Summon { instance: 59, lane: 1 }),
        Action::Battle(Move::Attack { attacker: 1, target: 0 }),
        Action::Battle(Move::Attack { attacker: 60, target: 33 }),
        Action::Battle(Move::Use { item: 7, target: 0 }),
    ];
    for action in actions {
        assert_eq!(LocmGame::action_from_code(LocmGame::action_code(action)), Some(action));
    }
    for code in [4, 1 << 16 | 2, 1 << 16 | 61 << 8, 2 << 16 | 1 << 8 | 61, 4 << 16 | 1 << 8] {
        assert_eq!(LocmGame::action_from_code(code), None, "{code:#x}");
    }
}

#[test]
fn the_draft_offers_distinct_cards_from_a_pool_of_sixty() {
    let config = Config::bundled();
    for seed in 0..20 {
        let game = LocmGame::new(&config, seed);
        let mut pool: Vec<u8> = game.triples.iter().flatten().copied().collect();
        for triple in &game.triples {
            assert!(triple[0] != triple[1] && triple[1] != triple[2] && triple[0] != triple[2]);
        }
        pool.sort_unstable();
        pool.dedup();
        assert!(pool.len() <= POOL_SIZE && pool.len() > 30, "{}", pool.len());
    }
    assert_ne!(LocmGame::new(&config, 1).triples, LocmGame::new(&config, 2).triples);
}

#[test]
fn the_opponents_hand_and_both_decks_are_hidden_from_the_view() {
    let config = Config::bundled();
    let mut game = LocmGame::new(&config, 9);
    for _ in 0..2 * PICKS {
        game.step(Action::Pick(1)).unwrap();
    }
    let View::Battle(view) = game.view() else { panic!("battle expected") };
    assert_eq!(view.battle.current, 0);
    assert!(view.battle.players[0].hand().iter().all(|card| card.card != 0));
    assert_eq!(view.battle.players[1].hand().len(), 6 - 1);
    assert!(view.battle.players[1].hand().iter().all(|card| card.card == 0));
}

#[test]
fn config_round_trips_through_serde_and_rejects_a_bad_card_list() {
    let config = Config::bundled();
    let json = serde_json::to_string(&config).unwrap();
    let back: Config = serde_json::from_str(&json).unwrap();
    assert_eq!(back, config);
    let mut setup = LocmSetup::from(config);
    setup.cards[4].defense = 0;
    let json = serde_json::to_string(&setup).unwrap();
    let error = serde_json::from_str::<Config>(&json).unwrap_err().to_string();
    assert!(error.contains("defense >= 1"), "{error}");
    setup.cards.truncate(10);
    assert!(serde_json::from_str::<Config>(&serde_json::to_string(&setup).unwrap()).is_err());
}

#[test]
fn java_seeds_follow_the_referees_derivation() {
    let seeds = JavaSeeds::from_game_seed(0);
    assert_eq!(seeds.draft, -4_962_768_465_676_381_896);
    let java = Config::bundled().with_randomness(DeckRandomness::Java);
    let game = LocmGame::new(&java, 0);
    assert_eq!(game.triples, LocmGame::with_java_seeds(&java, seeds).triples);
}

#[test]
fn render_shows_the_draft_then_the_battle() {
    let config = Config::bundled();
    let mut game = LocmGame::new(&config, 4);
    let draft = game.render();
    assert!(draft.starts_with("tick 0\ndraft: pick 1 of 30, player 0 to choose\n"), "{draft}");
    let first = game.table().card(game.triples[0][0]).name.clone();
    assert!(draft.contains(&format!("  0: {first} (")), "{draft}");
    for _ in 0..2 * PICKS {
        game.step(Action::Pick(2)).unwrap();
    }
    let battle = game.render();
    assert!(battle.contains("battle: turn 0, player 0 to move"), "{battle}");
    assert!(battle.contains("player 0: health 30 mana 1/1 deck 25 runes 5 next draw 1"), "{battle}");
    assert!(battle.contains("player 1: health 30 mana 1/1 deck 25 runes 5 next draw 1"), "{battle}");
}

/// Move generation against a brute-force oracle: in positions reached by
/// random play, the generated actions are exactly the actions (over every
/// instance id, lane and target) that `is_legal` accepts, without repeats.
#[test]
fn move_generation_matches_brute_force_legality() {
    use super::plan::BattleBot;
    use super::plan::draft::DraftBot;
    use super::plan::seats::LocmBots;
    let config = Config::bundled();
    let mut positions = 0;
    for seed in 0..12 {
        let mut game = LocmGame::new(&config, 100 + seed);
        let mut bots = LocmBots::new([DraftBot::Random, DraftBot::Random], [BattleBot::Random; 2]);
        while game.winner().is_none() {
            if let Some(battle) = game.battle() {
                let table = game.table();
                let mut generated = Vec::new();
                battle.legal_moves(table, &mut generated);
                let mut brute = Vec::new();
                for id in 1..=60u8 {
                    for lane in 0..3u8 {
                        brute.push(Move::Summon { instance: id, lane });
                    }
                    for target in 0..=60u8 {
                        brute.push(Move::Attack { attacker: id, target });
                        brute.push(Move::Use { item: id, target });
                    }
                }
                brute.push(Move::EndTurn);
                let mut accepted: Vec<Move> =
                    brute.into_iter().filter(|&action| battle.is_legal(action, table)).collect();
                let mut sorted = generated.clone();
                sorted.sort_by_key(|&action| LocmGame::action_code(Action::Battle(action)));
                accepted.sort_by_key(|&action| LocmGame::action_code(Action::Battle(action)));
                assert_eq!(sorted, accepted, "seed {seed} tick {}", game.tick());
                let mut legal = Vec::new();
                game.legal_actions(&mut legal);
                assert_eq!(legal.len(), generated.len());
                positions += 1;
            }
            let (action, _) = bots.decide(&game);
            game.step(action).unwrap();
        }
    }
    assert!(positions > 200, "{positions}");
}

#[test]
fn end_reasons_read_as_the_formatter_writes_them() {
    for (winner, turn, health) in [(0, 13, -3), (1, 11, 0), (0, 0, i16::MIN), (1, i16::MAX, 30)] {
        let expected = format!("player {winner} wins on turn {turn}, player {} at {health} health", 1 - winner);
        assert_eq!(end_reason(winner, turn, health), expected);
    }
}
